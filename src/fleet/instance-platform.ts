/**
 * The instance types a fleet can run on, by their platform as the catalog keeps it
 * (DescribeInstanceTypes' Hypervisor, NvmeSupport and EbsOptimizedSupport). A member finds its
 * data volume as an NVMe device and its instance is launched EBS-optimized, so:
 *
 *   - a Xen type (m4, c4, r4, i3, x1, d2, h1, t2) shows its EBS volumes as /dev/xvd*: its member
 *     fails at boot, after the stacks were made and billed;
 *   - a type without NVMe for EBS fails the same way;
 *   - a type that cannot be EBS-optimized (t2) refuses the launch.
 *
 * Each is refused when the plan is made (EVOLUME_PLACEMENT), naming the field that rules it out
 * and the nearest type built on Nitro of the same size. A type the catalog does not know is left
 * to the plan's warning: nothing here can say it is wrong.
 */
import { instancePlatforms, type InstancePlatformInfo } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';

interface TypeName {
  family: string;
  generation: number;
  attributes: string;
  size: string;
}

function nameOf(type: string): TypeName | undefined {
  const m = /^([a-z]+)(\d+)([a-z-]*)\.([a-z0-9]+)$/.exec(type);
  return m ? { family: m[1], generation: Number(m[2]), attributes: m[3], size: m[4] } : undefined;
}

export interface PlatformProblem {
  /** The catalog's field, and its value. */
  field: 'hypervisor' | 'nvme_support' | 'ebs_optimized_support';
  value: string;
  why: string;
}

/** What rules a type out, each as the catalog's field and the member's words; none when it fits. */
export function platformProblems(p: InstancePlatformInfo): PlatformProblem[] {
  const out: PlatformProblem[] = [];
  if (p.hypervisor === 'xen') out.push({ field: 'hypervisor', value: 'xen', why: 'its EBS volumes are /dev/xvd* devices, where a member finds its data volume among NVMe devices' });
  if (p.nvme_support === 'unsupported' && p.hypervisor !== 'xen') {
    out.push({ field: 'nvme_support', value: 'unsupported', why: 'its EBS volumes are not NVMe devices, where a member finds its data volume among NVMe devices' });
  } else if (p.nvme_support === 'unsupported') {
    out.push({ field: 'nvme_support', value: 'unsupported', why: 'no NVMe device at all' });
  }
  if (p.ebs_optimized_support === 'unsupported') out.push({ field: 'ebs_optimized_support', value: 'unsupported', why: 'it cannot be launched EBS-optimized, as every member is' });
  return out;
}

const sharesArchitecture = (a: InstancePlatformInfo, b: InstancePlatformInfo) =>
  !a.architectures || !b.architectures || a.architectures.some((x) => x !== 'i386' && b.architectures!.includes(x));

/**
 * The type built on Nitro nearest to `from`, of the same size and architecture: of its own family
 * first (the closest generation, a later one before an earlier; the same attributes, then the
 * fewest), else a general-purpose one (m, then t).
 */
export function nearestNitro(from: InstancePlatformInfo, all: readonly InstancePlatformInfo[]): string | undefined {
  const want = nameOf(from.type);
  if (!want) return undefined;
  const fits = all.filter((p) => platformProblems(p).length === 0 && sharesArchitecture(from, p))
    .map((p) => ({ p, n: nameOf(p.type) }))
    .filter((c): c is { p: InstancePlatformInfo; n: TypeName } => c.n !== undefined && c.n.size === want.size);
  const rank = (n: TypeName) => [
    Math.abs(n.generation - want.generation) + (n.generation < want.generation ? 0.5 : 0),
    n.attributes === want.attributes ? 0 : 1,
    n.attributes.length,
  ];
  for (const family of [want.family, 'm', 't']) {
    const best = fits.filter((c) => c.n.family === family).sort((a, b) => {
      const ra = rank(a.n);
      const rb = rank(b.n);
      return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2] || a.p.type.localeCompare(b.p.type);
    })[0];
    if (best) return best.p.type;
  }
  return undefined;
}

/** Refuses an instance type whose platform a member cannot run on (EVOLUME_PLACEMENT), naming `field`. */
export function checkInstancePlatform(instanceType: string, field = '--instance'): void {
  const all = instancePlatforms();
  const p = all.find((i) => i.type === instanceType);
  if (!p) return;
  const problems = platformProblems(p);
  if (problems.length === 0) return;
  const near = nearestNitro(p, all);
  const said = problems.map((x) => `${x.field} ${x.value} (${x.why})`).join(', ');
  throw new VolbenchError('EVOLUME_PLACEMENT', `${field} ${instanceType}: the instance catalog says ${said}; ` +
    `${near ? `${near} is the nearest type built on Nitro of the same size` : 'take a type built on Nitro'}; nothing was planned`, {
    field, accepted: near ? `a type built on Nitro, e.g. ${near}` : 'a type built on Nitro (hypervisor nitro, NVMe EBS, EBS-optimized)',
  });
}
