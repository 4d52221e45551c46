/**
 * The cloud context of a `volbench run`: what --volume and --instance say, or, when a target is
 * an EBS volume, what AWS says about it (src/cloud/identity.ts), checked against the flags
 * before any I/O. Runs on anything else (a file on a local disk, tmpfs, a loop device) ask
 * nothing and wait for nothing. `--no-cloud-lookup` or VOLBENCH_CLOUD_LOOKUP=off turns it off.
 */
import { checkAgainstAws, describe, knownInstance, recogniseVolume, type CloudContext, type Volume } from '../cloud/index.js';
import { identifyTarget } from '../device/index.js';

export interface CloudFlags {
  volume?: Volume;
  instance?: string;
  /** false: --no-cloud-lookup. */
  lookup?: boolean;
}

export interface CloudLookupDeps {
  /** The EBS volume ids of the run's targets (vol-…), each once; default: from their NVMe serials. */
  volumeIdsOf?: (paths: readonly string[]) => Promise<string[]>;
  env?: NodeJS.ProcessEnv;
}

/** The distinct EBS volumes the targets live on; a target that cannot be identified is none. */
export async function ebsVolumeIdsOf(paths: readonly string[]): Promise<string[]> {
  const ids = await Promise.all(paths.map((p) => identifyTarget(p).then((t) => t.ebsVolumeId, () => null)));
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

export function lookupEnabled(flags: CloudFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  return flags.lookup !== false && (env.VOLBENCH_CLOUD_LOOKUP ?? '').toLowerCase() !== 'off';
}

/**
 * The context withCloud annotates the result with, or undefined for none. Throws only for flags
 * that contradict AWS; a lookup that cannot be made is one line on `warn`.
 */
export async function cloudForRun(targetPaths: readonly string[], flags: CloudFlags, warn: (line: string) => void, deps: CloudLookupDeps = {}): Promise<CloudContext | undefined> {
  const fromFlags = flags.volume ? { volume: flags.volume, instance: flags.instance } : undefined;
  const env = deps.env ?? process.env;
  if (!lookupEnabled(flags, env)) return fromFlags;
  const ids = await (deps.volumeIdsOf ?? ebsVolumeIdsOf)(targetPaths);
  if (ids.length === 0) return fromFlags;
  if (ids.length > 1) {
    warn(`cloud lookup skipped: the targets are on ${ids.length} EBS volumes (${ids.join(', ')}); volbench.cloud describes one`);
    return fromFlags;
  }
  const found = await recogniseVolume({ volumeId: ids[0], env });
  if (!found.ok) {
    warn(`cloud lookup of ${ids[0]} skipped: ${found.reason}`);
    return fromFlags;
  }
  const r = found.value;
  checkAgainstAws(r, flags);
  const type = flags.instance ?? r.instance?.instanceType;
  const bounded = type !== undefined && knownInstance(type);
  if (type && !bounded) warn(`instance type ${type} is not in the catalog: the entitlement is ${describe(r.spec)}'s alone`);
  return {
    volume: r.spec,
    ...(bounded ? { instance: type } : type ? { instanceType: type } : {}),
    region: r.region,
    ...(r.availabilityZone ? { availabilityZone: r.availabilityZone } : {}),
    volumeId: r.volume.id,
  };
}
