/**
 * What a fleet plan knows before anything is made: per volume, what each test of its suite
 * should reach (entitled, with the limit that binds and, on an instance whose EBS limits burst,
 * what follows its 30 minutes a day), and the findings a storage engineer would raise:
 *
 *   - instance-baseline: the instance's EBS baseline is below what the volume delivers, so a run
 *     longer than the instance's daily burst measures the instance;
 *   - block-size: the suite's I/O size cannot reach the throughput paid for (aws-ssd's 16 KiB on
 *     gp3 6,000 IOPS reaches 93.75 MiB/s of 250);
 *   - hdd-on-ssd-suite: an HDD volume given an SSD suite by name (an explicit --suite or suite=).
 *
 * (Instance store on a type without one is refused when the plan is made: it cannot be created.)
 */
import { directionOf, entitlement, instanceType, type BoundBy, type Volume } from '../cloud/index.js';
import { SEQUENTIAL_RW } from '../cloud/entitlement.js';
import type { ParsedJob } from '../jobspec/types.js';
import { suiteManifest } from '../suites/index.js';

export interface TestEntitlement {
  test: string;
  bs: number;
  rw: string;
  iops: number;
  mibps: number;
  bound_by: BoundBy;
  /** On an instance whose EBS limits burst, when lower: the rate after its 30 minutes a day. */
  after_instance_burst?: { seconds: number; iops: number; mibps: number };
}

export type PlanFindingKind = 'instance-baseline' | 'block-size' | 'hdd-on-ssd-suite';

export interface PlanFinding {
  kind: PlanFindingKind;
  /** The member (volume label) it is about. */
  label: string;
  message: string;
}

/** A suite's tests as the entitlement reads them: name, I/O size, pattern. */
export interface SuiteTest {
  name: string;
  bs: number;
  rw: string;
}

/** The tests of a parsed job file: a write job's I/O size is its write size. */
export function suiteTests(jobs: readonly ParsedJob[]): SuiteTest[] {
  return jobs.map((j) => {
    const rw = j.options.rw;
    const d = directionOf(rw);
    return { name: j.options.name, bs: j.options.bs[d === 'write' ? 1 : 0], rw };
  });
}

/** What `volume` on `instance` (undefined: one the catalog lacks, so the volume alone) should deliver to each test. */
export function testEntitlements(volume: Volume, instance: string | undefined, tests: readonly SuiteTest[]): TestEntitlement[] {
  return tests.map((t) => {
    const e = entitlement(volume, { bs: t.bs, sequential: SEQUENTIAL_RW.has(t.rw), direction: directionOf(t.rw), instance });
    const ib = e.instance_burst;
    return {
      test: t.name, bs: t.bs, rw: t.rw, iops: e.entitled.iops, mibps: e.entitled.mibps, bound_by: e.entitled.bound_by,
      ...(ib ? { after_instance_burst: { seconds: ib.after_s, iops: ib.iops, mibps: ib.mibps } } : {}),
    };
  });
}

const n = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });
const kib = (bs: number) => (bs >= 1024 * 1024 ? `${bs / 1024 / 1024} MiB` : `${bs / 1024} KiB`);

/** The instance's EBS baseline under the volume at some test: its daily burst ends inside a long run. */
function instanceBaseline(label: string, instance: string | undefined, tests: readonly TestEntitlement[]): PlanFinding | undefined {
  const hit = tests.find((t) => t.after_instance_burst);
  if (!hit || instance === undefined) return undefined;
  const ebs = instanceType(instance).ebs;
  const after = hit.after_instance_burst!;
  return {
    kind: 'instance-baseline', label,
    message: `${instance}'s EBS baseline (${n(ebs.baseline_mbps)} Mbps, ${n(ebs.baseline_iops)} IOPS) is below what ${label} delivers at ${hit.test}: ` +
      `${n(hit.iops)} IOPS for its first ${after.seconds / 60} min a day, then ${n(after.iops)} IOPS (${n(after.mibps)} MiB/s, instance-burst)`,
  };
}

/** Throughput paid for above what is included, which no test of the suite can reach. */
function blockSize(label: string, volume: Volume, suite: string, tests: readonly TestEntitlement[]): PlanFinding | undefined {
  const paid = volume.provisionedThroughputMiBps;
  const included = volume.catalog.throughput_mibps.included;
  if (paid === undefined || included === undefined || paid <= included || tests.length === 0) return undefined;
  const best = tests.reduce((a, b) => (b.mibps > a.mibps ? b : a));
  // Only the block size's fault where the volume's IOPS hold it: an instance bound is said by
  // instance-baseline, and a larger I/O would not help.
  if (best.mibps >= paid || best.bound_by !== 'volume-iops') return undefined;
  const sizes = [...new Set(tests.map((t) => kib(t.bs)))].join(', ');
  return {
    kind: 'block-size', label,
    message: `suite ${suite} at ${sizes} reaches at most ${n(best.mibps)} MiB/s on ${label} (${best.test}, ${best.bound_by}): ` +
      `the ${n(paid)} MiB/s paid for (${n(paid - included)} above the included ${n(included)}) goes unused`,
  };
}

/** An HDD volume given an SSD suite by name. */
function hddOnSsd(label: string, volume: Volume, suite: string): PlanFinding | undefined {
  const media = suiteManifest().find((s) => s.name === suite)?.media;
  if (media !== 'ssd' || volume.catalog.media !== 'hdd') return undefined;
  return { kind: 'hdd-on-ssd-suite', label, message: `${label} is an HDD volume (${volume.type}) and suite ${suite} is for SSD volumes: its small random I/O measures the seek, not the volume's rating` };
}

export interface MemberFindingsInput {
  label: string;
  volume: Volume;
  /** Undefined when the catalog lacks the instance type's limits. */
  instance: string | undefined;
  suite: string;
  /** Whether the suite was named (--suite or suite=), not the default. */
  suiteNamed: boolean;
  tests: readonly TestEntitlement[];
}

/** The findings on one member, in a fixed order. */
export function memberFindings(m: MemberFindingsInput): PlanFinding[] {
  return [
    instanceBaseline(m.label, m.instance, m.tests),
    blockSize(m.label, m.volume, m.suite, m.tests),
    m.suiteNamed ? hddOnSsd(m.label, m.volume, m.suite) : undefined,
  ].filter((f): f is PlanFinding => f !== undefined);
}
