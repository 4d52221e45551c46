/**
 * A fleet before anything exists: one instance and one data volume per volume listed, what the
 * study will cost, and the names it will create. `fleet plan` prints it; `up` and `compare`
 * create exactly it.
 */
import { randomBytes } from 'node:crypto';

import {
  fleetUsd, instanceHourly, loadInstances, parseVolume, PUBLIC_IPV4_HOURLY, staleWarning, volumeMonthly, type DatedPrice, type LabelledVolume, type MemberOverhead, type Volume,
  type VolumeJson,
} from '../cloud/index.js';
import {
  basisText, cents, costBasis, fleetUsdPerHour, monthlyCost, usdPer1000Iops, usdPerMibps, type CostBasis, type CostScope,
} from '../cloud/cost.js';
import { VolbenchError } from '../errors.js';
import { parseSpec } from '../jobspec/index.js';
import { timedSeconds } from '../plan/index.js';
import { fleetDefaultSuite, sizedSpec, loadSuite } from '../suites/index.js';
import type { ParsedSpec } from '../jobspec/types.js';
import { memberFindings, suiteTests, testEntitlements, type PlanFinding, type TestEntitlement } from './plan-findings.js';
import { preconditionFor, type Precondition } from './precondition.js';
import { defaultTtlSec, EXPIRES_TAG } from './ttl.js';
import { checkFleetVolume, fleetVolume, type FleetVolume } from './volumes.js';
import { stackNameFor } from './names.js';
import { checkInstancePlatform } from './instance-platform.js';
import { checkMemberAccount, formatMemberAccount, type MemberAccount } from './member-account.js';



export interface FleetPlanInput {
  /** The volumes, labelled (fleetVolumes). */
  volumes: readonly LabelledVolume[];
  instanceType: string;
  region: string;
  /**
   * A shipped suite, or `auto` (the default): each volume gets the manifest's suite for its
   * media (aws-ssd on SSD types, aws-hdd on HDD types). A volume's `suite=` wins. Ignored for
   * the estimate when a job file is run instead.
   */
  suite?: string;
  /** The suites' runtime, replaced in every test (fio's units), as `volbench suite --runtime`. */
  runtime?: string;
  /** Write what the read tests will reach before the suite (default true; suites that read only). */
  precondition?: boolean;
  /** Seconds the workload takes when it is not a suite (a job file's timed stages). */
  workloadSeconds?: number;
  /** An id to reuse; a new one otherwise. */
  fleetId?: string;
  /** What the cost per month and per unit covers: the volume (default) or with the instance's share. */
  cost?: CostScope;
  /** How long a month is (default AWS's 730 h). */
  basis?: CostBasis;
  /** `--ttl`, seconds; the plan's default when absent. */
  ttlSec?: number;
  /** What a company account asks of the members: tags, no public address, a volume key (member-account.ts). */
  account?: MemberAccount;
}

/** A member's cost a month under the plan's scope, and per unit of what its suite's tests are entitled to, naming the test. */
export interface MemberCost {
  label: string;
  usd_per_month: number | null;
  usd_per_1000_iops: { usd: number; test: string } | null;
  usd_per_mibps: { usd: number; test: string } | null;
}

export interface PlanCost {
  cost_scope: CostScope;
  basis: CostBasis;
  members: MemberCost[];
}

export interface FleetMember {
  label: string;
  /** Its volume's figures as given (a state file keeps them). */
  volume: FleetVolume;
  /** The volume as its results say it: the IOPS and throughput it has, given or by default. */
  cloudVolume?: VolumeJson;
  /** The suite it runs: its volume's `suite=`, else the fleet's (`auto`: its media's). */
  suite?: string;
  /** What it writes before the suite, and how long that takes. */
  precondition?: Precondition;
  /** The CloudFormation stack that holds its instance and volume. */
  stackName: string;
  volumeMonthly?: DatedPrice;
  /** What each test of its suite should reach on the fleet's instance (none for a job file). */
  tests?: TestEntitlement[];
}

export interface FleetPlan {
  fleetId: string;
  region: string;
  instanceType: string;
  suite: string;
  /** The suites' runtime override, as given. */
  runtime?: string;
  members: FleetMember[];
  /** What preconditioning adds: the longest member's seconds, and their cost for the whole fleet. */
  precondition?: { seconds: number; usd?: number };
  instanceHourly?: DatedPrice;
  /** Each member's root volume (instance.yaml's /dev/xvda, ROOT_VOLUME) a month: in the estimate. */
  rootVolumeMonthly?: DatedPrice;
  /** Each member's public IPv4 address an hour: in the estimate (a subnet without public addresses makes it less). */
  publicIpv4Hourly?: DatedPrice;
  /** Wall time the estimate assumes: start-up, the workload, teardown. */
  hours: number;
  workloadSeconds: number;
  /** The whole study: every instance and volume for `hours`. Undefined where a price is unknown. */
  estimatedUsd?: number;
  /** With no price for the instance type: the volumes alone for `hours` (a floor, not the estimate). */
  volumesOnlyUsd?: number;
  /** What a storage engineer would raise before the study (`--strict` refuses on any). */
  findings: PlanFinding[];
  /** Cost a month per member, with its scope and basis, and per entitled unit at the test named. */
  cost?: PlanCost;
  /** The fleet's time to live from `fleet up` (`--ttl`, else the plan's duration twice plus 30 min). */
  ttlSec: number;
  /** Tags, no public address, the volumes' key: what the stacks are made with besides the plan's figures. */
  account?: MemberAccount;
  warnings: string[];
}

/** `--suite auto`: each volume runs the manifest's suite for its media. */
export const AUTO = 'auto';

/** Booting, installing Node and volbench, and signalling the stack: measured 6-10 min. */
const SETUP_SECONDS = 15 * 60;
/** Stack deletion and the check that nothing remains. */
const TEARDOWN_SECONDS = 5 * 60;

/** Every member's root volume, as infra/cloudformation/instance.yaml maps /dev/xvda. */
export const ROOT_VOLUME = 'gp3:16g';

/** What each member pays besides its instance and data volume, in `region`. */
function memberOverhead(region: string): MemberOverhead {
  const root = volumeMonthly(parseVolume(ROOT_VOLUME), region, { fallback: true });
  return { ...(root ? { rootVolumeMonthly: root } : {}), publicIpv4Hourly: PUBLIC_IPV4_HOURLY };
}

export function newFleetId(): string {
  return `vb${randomBytes(5).toString('hex')}`;
}


/** A plan's volumes as Volumes with labels: each checked for the fleet's instance type. */
function labelled(input: FleetPlanInput): LabelledVolume[] {
  return input.volumes.map((v, i) => {
    checkFleetVolume(v.volume, input.instanceType, `--volumes[${i}]`);
    return v;
  });
}

/** A suite's jobs (its runtime replaced, if given) and loops; refused naming `field` when there is no such suite. */
function suiteJobs(name: string, field: string, runtime?: string): { jobs: ParsedSpec; loops: number } {
  let suite;
  try {
    suite = loadSuite(name);
  } catch (err) {
    if (err instanceof VolbenchError) throw new VolbenchError(err.code, err.message, { field, ...(err.accepted ? { accepted: err.accepted } : {}) });
    throw err;
  }
  return { jobs: parseSpec(runtime === undefined ? suite.spec : sizedSpec(suite, { runtime })), loops: suite.loops };
}

/** Seconds a suite's timed stages take, times its loops. */
export function suiteSeconds(name: string, field: string, runtime?: string): number {
  const { jobs, loops } = suiteJobs(name, field, runtime);
  return timedSeconds(jobs) * loops;
}

/** The suite a volume runs: its own `suite=`, the fleet's, or under `auto` its media's from the manifest. */
function suiteOf(volume: Volume, fleetSuite: string, field: string): string {
  if (volume.suite) return volume.suite;
  if (fleetSuite !== AUTO) return fleetSuite;
  const media = volume.catalog.media;
  const name = fleetDefaultSuite(media);
  if (!name) throw new VolbenchError('EINVALID_ARGS', `${field}: no suite is the fleet default for ${media} volumes (${volume.type}); give suite=`, { field: `${field}.suite`, accepted: 'a shipped suite' });
  return name;
}

/** Each member's tests entitled (its own suite, as resolved), and the findings on it; none for a job file. */
function entitled(volumes: readonly LabelledVolume[], input: FleetPlanInput, suites: ReadonlyArray<string | undefined>): { tests: TestEntitlement[][]; findings: PlanFinding[] } {
  if (input.workloadSeconds !== undefined) return { tests: volumes.map(() => []), findings: [] };
  const findings: PlanFinding[] = [];
  const instance = loadInstances().some((t) => t.type === input.instanceType) ? input.instanceType : undefined;
  const tests = volumes.map((v, i) => {
    const suite = suites[i]!;
    const field = v.volume.suite ? `--volumes[${i}].suite` : '--suite';
    const t = testEntitlements(v.volume, instance, suiteTests(suiteJobs(suite, field, input.runtime).jobs.jobs));
    // auto picks each volume's suite for its media: only a suite the user named can be the wrong one.
    const suiteNamed = v.volume.suite !== undefined || (input.suite !== undefined && input.suite !== AUTO);
    findings.push(...memberFindings({ label: v.label, volume: v.volume, instance, suite, suiteNamed, tests: t }));
    return t;
  });
  return { tests, findings };
}

/** What one member runs: its suite (none for a job file), checked and timed, and what it writes first. */
interface MemberWork {
  suite?: string;
  seconds: number;
  precondition?: Precondition;
}

/** Each member's suite checked (and timed) first: a bad name is refused naming where it was given. */
function memberWork(volumes: readonly LabelledVolume[], input: FleetPlanInput, suiteName: string): MemberWork[] {
  const own = volumes.map((v, i) => ({ suite: v.volume.suite, field: `--volumes[${i}].suite` })).filter((s) => s.suite !== undefined);
  if (input.workloadSeconds !== undefined && own.length) {
    throw new VolbenchError('EINVALID_ARGS', `${own[0].field}: a job file runs on every member; suite= is for fleets that run suites`, { field: own[0].field, accepted: 'no suite= with --job' });
  }
  if (suiteName !== AUTO) suiteSeconds(suiteName, '--suite', input.runtime);
  if (input.workloadSeconds !== undefined) return volumes.map(() => ({ seconds: 0 }));
  const suites = volumes.map((v, i) => suiteOf(v.volume, suiteName, `--volumes[${i}]`));
  return volumes.map((v, i) => {
    const suite = suites[i];
    const seconds = suiteSeconds(suite, v.volume.suite ? `--volumes[${i}].suite` : suiteName === AUTO ? `--volumes[${i}]` : '--suite', input.runtime);
    const precondition = input.precondition === false ? undefined
      : preconditionFor(v.volume, input.instanceType, suite, input.runtime === undefined ? {} : { runtime: input.runtime });
    return { suite, seconds, ...(precondition ? { precondition } : {}) };
  });
}

/** What the estimate cannot vouch for: an instance without a price or limits, prices of another region or an old date. */
function planWarnings(input: FleetPlanInput, hourly: DatedPrice | undefined, members: readonly FleetMember[]): string[] {
  const warnings: string[] = [];
  if (!hourly) warnings.push(`no price known for ${input.instanceType}: the estimate leaves the instances out`);
  else if (hourly.region_used) warnings.push(`prices are ${hourly.region_used}'s (as of ${hourly.as_of}); ${input.region}'s may differ`);
  if (!loadInstances().some((t) => t.type === input.instanceType)) warnings.push(`no EBS limits known for ${input.instanceType}: the tests are entitled by the volume alone`);
  // Old prices make an old estimate: say so, naming each date once.
  const dates = new Set([hourly?.as_of, ...members.map((m) => m.volumeMonthly?.as_of)].filter((d): d is string => d !== undefined));
  for (const d of [...dates].sort()) {
    const stale = staleWarning(d);
    if (stale) warnings.push(stale);
  }
  return warnings;
}

export function planFleet(input: FleetPlanInput): FleetPlan {
  if (input.volumes.length === 0) {
    throw new VolbenchError('EINVALID_ARGS', 'a fleet needs at least one volume', { field: '--volumes', accepted: 'e.g. gp3:500g,io2:500g:iops=16000' });
  }
  checkInstancePlatform(input.instanceType);
  const account = input.account ? checkMemberAccount(input.account, input.region) : undefined;
  const volumes = labelled(input);
  const fleetId = input.fleetId ?? newFleetId();
  const suiteName = input.suite ?? AUTO;
  const work = memberWork(volumes, input, suiteName);
  const preSeconds = Math.max(0, ...work.map((w) => w.precondition?.seconds ?? 0));
  // The members run at once: the study lasts as long as its longest suite and precondition.
  const workloadSeconds = input.workloadSeconds ?? Math.max(...work.map((w) => w.seconds + (w.precondition?.seconds ?? 0)));
  const hours = (SETUP_SECONDS + workloadSeconds + TEARDOWN_SECONDS) / 3600;
  const hourly = instanceHourly(input.instanceType, input.region);
  const { tests, findings } = entitled(volumes, input, work.map((w) => w.suite));
  const members: FleetMember[] = volumes.map((v, i) => ({
    label: v.label,
    volume: fleetVolume(v),
    cloudVolume: v.volume.json(),
    ...(work[i].suite ? { suite: work[i].suite } : {}),
    ...(work[i].precondition ? { precondition: work[i].precondition } : {}),
    stackName: stackNameFor(fleetId, v.label),
    volumeMonthly: volumeMonthly(v.volume, input.region, { fallback: true }),
    ...(tests[i].length ? { tests: tests[i] } : {}),
  }));
  // Without a public address (--no-public-ip) a member pays for none.
  const { publicIpv4Hourly, ...rest } = memberOverhead(input.region);
  const overhead: MemberOverhead = account?.noPublicIp ? rest : { ...rest, ...(publicIpv4Hourly ? { publicIpv4Hourly } : {}) };
  const usdFor = (h: number) => fleetUsd(hourly, members.map((m) => m.volumeMonthly), h, overhead);
  const estimatedUsd = usdFor(hours);
  const preUsd = usdFor(preSeconds / 3600);
  // Limits but no price: the estimate is said to leave the instances out, and the volumes' is given.
  const volumesOnly = hourly ? undefined : volumesOnlyUsd(members.map((m) => m.volumeMonthly), hours);
  return {
    fleetId,
    region: input.region,
    instanceType: input.instanceType,
    suite: suiteName,
    ...(input.runtime !== undefined ? { runtime: input.runtime } : {}),
    members,
    ...(preSeconds > 0 ? { precondition: { seconds: preSeconds, ...(preUsd === undefined ? {} : { usd: preUsd }) } } : {}),
    ...(hourly ? { instanceHourly: hourly } : {}),
    ...overhead,
    hours,
    workloadSeconds,
    ...(estimatedUsd === undefined ? {} : { estimatedUsd }),
    ...(volumesOnly === undefined ? {} : { volumesOnlyUsd: volumesOnly }),
    findings,
    cost: planCost(members, hourly, input.cost ?? 'volume', input.basis ?? costBasis('730h')),
    ttlSec: input.ttlSec ?? defaultTtlSec(hours),
    ...(account ? { account } : {}),
    warnings: planWarnings(input, hourly, members),
  };
}

const usd = (n: number) => `$${n.toFixed(2)}`;
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(bytes < 10 * 2 ** 30 ? 1 : 0)} GiB`;

/** Per member: its month under `scope` and `basis`, and that per 1,000 IOPS and per MiB/s at the test entitled to most. */
function planCost(members: readonly FleetMember[], hourly: DatedPrice | undefined, scope: CostScope, basis: CostBasis): PlanCost {
  const per = (usd: number | undefined, tests: readonly TestEntitlement[], key: 'iops' | 'mibps') => {
    if (usd === undefined || tests.length === 0) return null;
    const best = tests.reduce((a, b) => (b[key] > a[key] ? b : a));
    const v = key === 'iops' ? usdPer1000Iops(usd, best.iops) : usdPerMibps(usd, best.mibps);
    return v === null ? null : { usd: Math.round(v * 1000) / 1000, test: best.test };
  };
  return {
    cost_scope: scope,
    basis,
    members: members.map((m) => {
      const usd = monthlyCost(m.volumeMonthly, hourly, scope, basis);
      return { label: m.label, usd_per_month: usd === undefined ? null : cents(usd), usd_per_1000_iops: per(usd, m.tests ?? [], 'iops'), usd_per_mibps: per(usd, m.tests ?? [], 'mibps') };
    }),
  };
}

/** The cost lines under the plan: each member's month and per-unit figures, the scope and the basis. */
function formatCost(plan: FleetPlan): string[] {
  const c = plan.cost;
  if (!c) return [];
  const scope = c.cost_scope === 'total' ? `total: the volume and one ${plan.instanceType}` : 'volume: the volume alone';
  const unit = (x: { usd: number; test: string } | null, what: string) => (x ? `$${x.usd.toFixed(3)} per ${what} (${x.test})` : `? per ${what}`);
  return [
    '', `cost a month (${scope}; basis ${basisText(c.basis)}; per unit of the entitled rate at the test named):`,
    ...c.members.map((m) => `  ${m.label}: ${m.usd_per_month === null ? '?' : usd(m.usd_per_month)}, ${unit(m.usd_per_1000_iops, '1,000 IOPS')}, ${unit(m.usd_per_mibps, 'MiB/s')}`),
  ];
}

/** The volumes' cost for `hours` when each has a price. */
function volumesOnlyUsd(prices: ReadonlyArray<DatedPrice | undefined>, hours: number): number | undefined {
  if (prices.some((p) => p === undefined)) return undefined;
  return cents(fleetUsdPerHour(undefined, prices).usd * hours);
}

const grouped = (v: number) => v.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** Per member, what each test should reach: entitled IOPS and MiB/s, what binds, and what follows the instance's burst. */
function formatTests(plan: FleetPlan): string[] {
  const rows = plan.members.flatMap((m) => (m.tests ?? []).map((t) => {
    const after = t.after_instance_burst ? `${grouped(t.after_instance_burst.iops)} IOPS, ${grouped(t.after_instance_burst.mibps)} MiB/s` : '';
    const io = t.bs >= 1024 * 1024 && t.bs % (1024 * 1024) === 0 ? `${t.bs / 1024 / 1024} MiB` : `${t.bs / 1024} KiB`;
    return `| ${m.label} | ${t.test} | ${io} ${t.rw} | ${grouped(t.iops)} | ${grouped(t.mibps)} | ${t.bound_by} | ${after} |`;
  }));
  if (!rows.length) return [];
  return ['', `entitled on ${plan.instanceType} (no merging of small sequential I/O; at the instance's EBS burst):`, '',
    '| volume | test | I/O | IOPS | MiB/s | bound by | after the instance\'s 30 min |', '| --- | --- | --- | --- | --- | --- | --- |', ...rows];
}

/** The plan as `fleet plan` prints it. */
export function formatPlan(plan: FleetPlan): string {
  const lines = [
    `fleet ${plan.fleetId} in ${plan.region}: ${plan.members.length} × ${plan.instanceType}, suite ${plan.suite}${plan.runtime ? ` (runtime ${plan.runtime})` : ''} ` +
      `(${Math.round(plan.workloadSeconds / 60)} min of I/O; ${plan.hours.toFixed(2)} h with start-up and teardown)`,
    '',
    '| volume | type | size | IOPS | MiB/s | volume $/month | stack |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const m of plan.members) {
    const v = m.volume;
    lines.push(`| ${m.label} | ${v.type} | ${v.sizeGiB ? `${v.sizeGiB} GiB` : 'instance'} | ${v.iops ?? 'default'} | ` +
      `${v.throughputMiBps ?? 'default'} | ${m.volumeMonthly ? usd(m.volumeMonthly.usd) : '?'} | ${m.stackName}${m.suite ? ` (suite ${m.suite})` : ''} |`);
  }
  lines.push('');
  if (plan.instanceHourly) lines.push(`instance: $${plan.instanceHourly.usd.toFixed(4)}/h each (${plan.instanceHourly.source}, as of ${plan.instanceHourly.as_of})`);
  const root = plan.rootVolumeMonthly;
  const ip = plan.publicIpv4Hourly;
  if (root || ip) {
    lines.push(`and each: ${[root ? `its ${ROOT_VOLUME} root volume (${usd(root.usd)} a month, prorated)` : '', ip ? `a public IPv4 address ($${ip.usd.toFixed(3)}/h, ${ip.source}, as of ${ip.as_of}; none in a subnet without public addresses)` : '']
      .filter(Boolean).join(' and ')}`);
  }
  const vp = plan.members.find((m) => m.volumeMonthly)?.volumeMonthly;
  if (vp) lines.push(`volumes: prorated from the monthly price (${vp.source}, as of ${vp.as_of})`);
  const pre = plan.members.filter((m) => m.precondition);
  if (pre.length && plan.precondition) {
    const each = pre.map((m) => `${m.label} ${gib(m.precondition!.bytes)} in ${Math.ceil(m.precondition!.seconds)} s`).join(', ');
    lines.push(`precondition (writes what the read tests reach, before the suite): ${each}; adds ${Math.ceil(plan.precondition.seconds / 60)} min` +
      `${plan.precondition.usd === undefined ? '' : ` and ${usd(plan.precondition.usd)}`} to the study (--no-precondition skips it)`);
  }
  lines.push(`estimated cost of the study: ${plan.estimatedUsd === undefined ? 'unknown' : usd(plan.estimatedUsd)}`);
  lines.push(`expires ${(plan.ttlSec / 3600).toFixed(2)} h after fleet up (--ttl): everything is tagged ${EXPIRES_TAG}, ` +
    'each member shuts itself down then, and fleet reap deletes what is left');
  if (plan.volumesOnlyUsd !== undefined) lines.push(`without the instances (no price for ${plan.instanceType}): ${usd(plan.volumesOnlyUsd)} for the volumes alone`);
  if (plan.account) lines.push(...formatMemberAccount(plan.account));
  lines.push(...formatTests(plan));
  lines.push(...formatCost(plan));
  if (plan.findings?.length) lines.push('');
  for (const f of plan.findings ?? []) lines.push(`finding ${f.kind}: ${f.message}`);
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}
