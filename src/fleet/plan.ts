/**
 * A fleet before anything exists: one instance and one data volume per volume listed, what the
 * study will cost, and the names it will create. `fleet plan` prints it; `up` and `compare`
 * create exactly it.
 */
import { randomBytes } from 'node:crypto';

import { staleWarning } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import { parseSpec } from '../jobspec/index.js';
import { timedSeconds } from '../plan/index.js';
import { loadSuite } from '../suites/index.js';
import { HOURS_PER_MONTH, instanceHourly, volumeMonthly, type DatedPrice } from './prices.js';
import type { FleetVolume } from './volumes.js';

export interface FleetPlanInput {
  volumes: FleetVolume[];
  instanceType: string;
  region: string;
  /** A shipped suite (default aws-ssd); ignored for the estimate when a job file is run instead. */
  suite?: string;
  /** Seconds the workload takes when it is not a suite (a job file's timed stages). */
  workloadSeconds?: number;
  /** An id to reuse; a new one otherwise. */
  fleetId?: string;
}

export interface FleetMember {
  label: string;
  volume: FleetVolume;
  /** The CloudFormation stack that holds its instance and volume. */
  stackName: string;
  volumeMonthly?: DatedPrice;
}

export interface FleetPlan {
  fleetId: string;
  region: string;
  instanceType: string;
  suite: string;
  members: FleetMember[];
  instanceHourly?: DatedPrice;
  /** Wall time the estimate assumes: start-up, the workload, teardown. */
  hours: number;
  workloadSeconds: number;
  /** The whole study: every instance and volume for `hours`. Undefined where a price is unknown. */
  estimatedUsd?: number;
  warnings: string[];
}

/** Booting, installing Node and volbench, and signalling the stack: measured 6-10 min. */
const SETUP_SECONDS = 15 * 60;
/** Stack deletion and the check that nothing remains. */
const TEARDOWN_SECONDS = 5 * 60;

export function newFleetId(): string {
  return `vb${randomBytes(5).toString('hex')}`;
}

export function stackNameFor(fleetId: string, label: string): string {
  const safe = label.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 80);
  return `volbench-${fleetId}-${safe}`;
}

export function planFleet(input: FleetPlanInput): FleetPlan {
  if (input.volumes.length === 0) {
    throw new VolbenchError('EINVALID_ARGS', 'a fleet needs at least one volume', { field: '--volumes', accepted: 'e.g. gp3:500g,io2:500g:iops=16000' });
  }
  const fleetId = input.fleetId ?? newFleetId();
  const suiteName = input.suite ?? 'aws-ssd';
  let workloadSeconds = input.workloadSeconds;
  if (workloadSeconds === undefined) {
    const suite = loadSuite(suiteName);
    workloadSeconds = timedSeconds(parseSpec(suite.spec)) * suite.loops;
  }
  const hours = (SETUP_SECONDS + workloadSeconds + TEARDOWN_SECONDS) / 3600;
  const warnings: string[] = [];
  const hourly = instanceHourly(input.instanceType, input.region);
  if (!hourly) warnings.push(`no price known for ${input.instanceType}: the estimate leaves the instances out`);
  else if (hourly.region_used) warnings.push(`prices are ${hourly.region_used}'s (as of ${hourly.as_of}); ${input.region}'s may differ`);
  const members = input.volumes.map((volume) => ({
    label: volume.label,
    volume,
    stackName: stackNameFor(fleetId, volume.label),
    volumeMonthly: volumeMonthly(volume, input.region),
  }));
  // Old prices make an old estimate: say so, naming each date once.
  const dates = new Set([hourly?.as_of, ...members.map((m) => m.volumeMonthly?.as_of)].filter((d): d is string => d !== undefined));
  for (const d of [...dates].sort()) {
    const stale = staleWarning(d);
    if (stale) warnings.push(stale);
  }
  let estimatedUsd: number | undefined = 0;
  for (const m of members) {
    if (!hourly || !m.volumeMonthly) {
      estimatedUsd = undefined;
      break;
    }
    estimatedUsd += hourly.usd * hours + (m.volumeMonthly.usd * hours) / HOURS_PER_MONTH;
  }
  return {
    fleetId,
    region: input.region,
    instanceType: input.instanceType,
    suite: suiteName,
    members,
    ...(hourly ? { instanceHourly: hourly } : {}),
    hours,
    workloadSeconds,
    ...(estimatedUsd === undefined ? {} : { estimatedUsd: Math.round(estimatedUsd * 100) / 100 }),
    warnings,
  };
}

const usd = (n: number) => `$${n.toFixed(2)}`;

/** The plan as `fleet plan` prints it. */
export function formatPlan(plan: FleetPlan): string {
  const lines = [
    `fleet ${plan.fleetId} in ${plan.region}: ${plan.members.length} × ${plan.instanceType}, suite ${plan.suite} ` +
      `(${Math.round(plan.workloadSeconds / 60)} min of I/O; ${plan.hours.toFixed(2)} h with start-up and teardown)`,
    '',
    '| volume | type | size | IOPS | MiB/s | volume $/month | stack |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const m of plan.members) {
    const v = m.volume;
    lines.push(`| ${m.label} | ${v.type} | ${v.sizeGiB ? `${v.sizeGiB} GiB` : 'instance'} | ${v.iops ?? 'default'} | ` +
      `${v.throughputMiBps ?? 'default'} | ${m.volumeMonthly ? usd(m.volumeMonthly.usd) : '?'} | ${m.stackName} |`);
  }
  lines.push('');
  if (plan.instanceHourly) lines.push(`instance: $${plan.instanceHourly.usd.toFixed(4)}/h each (${plan.instanceHourly.source}, as of ${plan.instanceHourly.as_of})`);
  const vp = plan.members.find((m) => m.volumeMonthly)?.volumeMonthly;
  if (vp) lines.push(`volumes: prorated from the monthly price (${vp.source}, as of ${vp.as_of})`);
  lines.push(`estimated cost of the study: ${plan.estimatedUsd === undefined ? 'unknown' : usd(plan.estimatedUsd)}`);
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  return `${lines.join('\n')}\n`;
}
