/**
 * Which volume a run measured, as AWS knows it: on an EC2 instance, the instance metadata
 * service (IMDSv2) says the instance type, region and zone, and EC2 DescribeVolumes says the
 * volume's type, size and provisioned IOPS and throughput. The volume id comes from the target
 * (an EBS volume's NVMe serial, src/device), so nothing is asked unless a target is on EBS.
 *
 * Off EC2, or without credentials or network, the lookup gives up with a reason for one warning,
 * never an error: it describes a run, it is not needed for one. The metadata service gets one
 * second in all (the token and the four reads), once per process.
 *
 * The AWS SDK is loaded only when a volume is looked up: the library entry, and runs that are
 * not on EBS, never load it.
 */
import { VolbenchError } from '../errors.js';
import { awsCall } from './aws-call.js';
import { awsClient } from './aws-clients.js';
import { loadInstances, volumeType } from './catalog.js';
import { describeSpec, volumeOf, type Volume, type VolumeSpec } from './volume.js';

/** What the instance metadata service says about the instance. */
export interface InstanceIdentity {
  instanceId: string;
  instanceType: string;
  region: string;
  availabilityZone: string;
}

/** A volume as DescribeVolumes reports it. */
export interface AwsVolume {
  id: string;
  type: string;
  sizeGiB: number;
  /** Provisioned (io1, io2, gp3) or baseline (gp2) IOPS; absent for HDD types. */
  iops?: number;
  throughputMiBps?: number;
  availabilityZone?: string;
}

export interface RecognisedVolume {
  provider: 'aws';
  region: string;
  availabilityZone?: string;
  /** Absent when the metadata service did not answer (the region then came from AWS_REGION). */
  instance?: InstanceIdentity;
  volume: AwsVolume;
  /** The volume as the catalog takes it, for the entitlement. */
  spec: Volume;
}

export type Lookup<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface ImdsOptions {
  /** Default: AWS_EC2_METADATA_SERVICE_ENDPOINT, else the link-local address. */
  endpoint?: string;
  /** The whole exchange's budget (token and reads). Default 1000 ms. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

const IMDS_IPV4 = 'http://169.254.169.254';
const IMDS_IPV6 = 'http://[fd00:ec2::254]';
const TOKEN_TTL_S = '21600';
const IMDS_TIMEOUT_MS = 1000;
/** DescribeVolumes' budget, credentials included: a run waits for it. */
const DESCRIBE_TIMEOUT_MS = 5000;

/** Whether the AWS SDK's switch for the metadata service is on (AWS_EC2_METADATA_DISABLED=true). */
export function imdsDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.AWS_EC2_METADATA_DISABLED ?? '').toLowerCase() === 'true';
}

/** The endpoint the SDK would use: its override, its IPv6 mode, or the link-local address. */
export function imdsEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
  if (override) return override.replace(/\/+$/, '');
  return (env.AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE ?? '').toLowerCase() === 'ipv6' ? IMDS_IPV6 : IMDS_IPV4;
}

const imdsCache = new Map<string, Promise<Lookup<InstanceIdentity>>>();

/**
 * The instance's identity from IMDSv2, or why not. Asked once per process and endpoint: a
 * second run in the same process (a suite, the service) pays nothing.
 */
export function instanceIdentity(opts: ImdsOptions = {}): Promise<Lookup<InstanceIdentity>> {
  const env = opts.env ?? process.env;
  if (imdsDisabled(env)) return Promise.resolve({ ok: false, reason: 'the instance metadata service is off (AWS_EC2_METADATA_DISABLED=true)' });
  const endpoint = (opts.endpoint ?? imdsEndpoint(env)).replace(/\/+$/, '');
  let found = imdsCache.get(endpoint);
  if (!found) {
    found = askImds(endpoint, opts.timeoutMs ?? IMDS_TIMEOUT_MS);
    imdsCache.set(endpoint, found);
  }
  return found;
}

/** Forgets what the metadata service said (tests that change it between cases). */
export function forgetInstanceIdentity(): void {
  imdsCache.clear();
}

async function askImds(endpoint: string, timeoutMs: number): Promise<Lookup<InstanceIdentity>> {
  // One budget for the whole exchange: a link-local address that does not route costs it once.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const tokenRes = await fetch(`${endpoint}/latest/api/token`, {
      method: 'PUT', headers: { 'x-aws-ec2-metadata-token-ttl-seconds': TOKEN_TTL_S }, signal,
    });
    const token = await tokenRes.text();
    if (!tokenRes.ok || !token) return { ok: false, reason: `the instance metadata service at ${endpoint} refused a token (HTTP ${tokenRes.status})` };
    const get = async (path: string): Promise<string> => {
      const res = await fetch(`${endpoint}/latest/meta-data/${path}`, { headers: { 'x-aws-ec2-metadata-token': token }, signal });
      const text = (await res.text()).trim();
      if (!res.ok || !text) throw new Error(`meta-data/${path}: HTTP ${res.status}`);
      return text;
    };
    const [instanceType, region, availabilityZone, instanceId] = await Promise.all(
      ['instance-type', 'placement/region', 'placement/availability-zone', 'instance-id'].map(get),
    );
    return { ok: true, value: { instanceId, instanceType, region, availabilityZone } };
  } catch (err) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    return { ok: false, reason: `the instance metadata service at ${endpoint} did not answer (${why}): not on EC2?` };
  }
}

/** DescribeVolumes for one volume, in `region`, with the default credential chain. */
export async function describeVolume(id: string, region: string): Promise<AwsVolume> {
  const { DescribeVolumesCommand, EC2Client } = await import('@aws-sdk/client-ec2');
  const client = awsClient(EC2Client, { region });
  try {
    const out = await awsCall('ec2:DescribeVolumes', () =>
      client.send(new DescribeVolumesCommand({ VolumeIds: [id] }), { abortSignal: AbortSignal.timeout(DESCRIBE_TIMEOUT_MS) }));
    const v = out.Volumes?.find((x) => x.VolumeId === id);
    if (!v || !v.VolumeType || v.Size === undefined) {
      throw new VolbenchError('ECLOUD', `ec2:DescribeVolumes did not return ${id} in ${region}`, { field: 'volume.id' });
    }
    return {
      id, type: v.VolumeType, sizeGiB: v.Size,
      ...(v.Iops !== undefined ? { iops: v.Iops } : {}),
      ...(v.Throughput !== undefined ? { throughputMiBps: v.Throughput } : {}),
      ...(v.AvailabilityZone ? { availabilityZone: v.AvailabilityZone } : {}),
    };
  } finally {
    client.destroy();
  }
}

/**
 * The volume as the catalog takes it: IOPS and throughput only where the type provisions them
 * (DescribeVolumes also reports gp2's baseline IOPS, which is the size's, not a setting).
 */
export function specOf(v: AwsVolume): VolumeSpec {
  const t = volumeType(v.type);
  return {
    type: v.type, sizeGiB: v.sizeGiB,
    ...(t.iops.provisioned && v.iops !== undefined ? { iops: v.iops } : {}),
    ...(t.throughput_mibps.provisioned && v.throughputMiBps !== undefined ? { throughputMiBps: v.throughputMiBps } : {}),
  };
}

export interface RecogniseOptions extends ImdsOptions {
  /** The EBS volume id (vol-…), from the target's NVMe serial. */
  volumeId: string;
}

/**
 * The volume behind a run: the instance from IMDS (or, with it off or silent, the region from
 * AWS_REGION / AWS_DEFAULT_REGION), then the volume from DescribeVolumes. Anything that stops
 * it is a reason, not an error.
 */
export async function recogniseVolume(opts: RecogniseOptions): Promise<Lookup<RecognisedVolume>> {
  const env = opts.env ?? process.env;
  const imds = await instanceIdentity(opts);
  const region = imds.ok ? imds.value.region : (env.AWS_REGION || env.AWS_DEFAULT_REGION);
  if (!region) return { ok: false, reason: `${imds.ok ? '' : `${imds.reason}; `}no region to look ${opts.volumeId} up in (set AWS_REGION)` };
  let volume: AwsVolume;
  try {
    volume = await describeVolume(opts.volumeId, region);
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    return { ok: false, reason: err.message };
  }
  let spec: Volume;
  try {
    spec = volumeOf(specOf(volume));
  } catch (err) {
    if (!(err instanceof VolbenchError)) throw err;
    return { ok: false, reason: `AWS reports ${volume.id} as ${describe(volume)}, which the catalog does not take: ${err.message}` };
  }
  const instance = imds.ok ? imds.value : undefined;
  const az = instance?.availabilityZone ?? volume.availabilityZone;
  return { ok: true, value: { provider: 'aws', region, ...(az ? { availabilityZone: az } : {}), ...(instance ? { instance } : {}), volume, spec } };
}

/** `gp3 500 GiB, 6000 IOPS, 250 MiB/s`. */
export function describe(v: VolumeSpec): string {
  return describeSpec(v);
}

/**
 * Refuses a --volume (or --instance) that says otherwise than AWS. Only what the flag states is
 * compared: `gp3:500g` does not claim gp3's default IOPS.
 */
export function checkAgainstAws(found: RecognisedVolume, flags: { volume?: VolumeSpec; instance?: string }): void {
  const f = flags.volume;
  const v = found.volume;
  if (f) {
    const differs = f.type !== v.type || f.sizeGiB !== v.sizeGiB
      || (f.iops !== undefined && f.iops !== found.spec.iops)
      || (f.throughputMiBps !== undefined && f.throughputMiBps !== found.spec.throughputMiBps);
    if (differs) {
      throw new VolbenchError('EINVALID_VALUE', `--volume says ${describe(f)}, but AWS reports ${v.id} as ${describe(v)} (${found.region})`, {
        field: '--volume', accepted: `the volume as it is (${describe(v)}), or no --volume`,
      });
    }
  }
  const it = found.instance?.instanceType;
  if (flags.instance && it && flags.instance !== it) {
    throw new VolbenchError('EINVALID_VALUE', `--instance says ${flags.instance}, but the instance metadata service reports ${it} (${found.instance?.instanceId})`, {
      field: '--instance', accepted: `${it}, or no --instance`,
    });
  }
}

/** Whether the catalog has the instance type's EBS limits. */
export function knownInstance(type: string): boolean {
  return loadInstances().some((i) => i.type === type);
}
