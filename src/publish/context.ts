/**
 * What a report measured on, said under its title: the volumes, the instance type, the zone,
 * the suite, how long each test ran, when, the fleet and the command; for a rehearsal the scale
 * its volumes were emulated at (the banner on the first screen); where a volume's statistics
 * page could not be read, why (said once). All of it from what the results carry.
 */
import { emulationBanner } from '../cloud/emulation.js';
import type { VolbenchEmulation } from '../fio-output/ebs-stats-section.js';
import type { ReadResult } from './read-result.js';

export interface ReportContext {
  /** The rows' volumes in words, each once, in row order. */
  volumes: string[];
  instance_types: string[];
  zones: string[];
  suites: string[];
  /** How long a test ran, seconds: the longest job's measured runtime. */
  runtime_s: number | null;
  /** The results' dates (UTC, YYYY-MM-DD), first and last (one when all are of a day). */
  dates: string[];
  fleet_ids: string[];
  /** The command that made the results, where the caller says. */
  command: string | null;
  /** The scale the results' volumes were emulated at (a rehearsal on one host); null for real volumes. */
  rehearsal: VolbenchEmulation | null;
  /** Where the volumes' statistics came from: nvme (the device), emulated, or null where none was read. */
  ebs_stats: 'nvme' | 'emulated' | null;
  /** Why a volume's statistics page was not read, each reason once. */
  ebs_stats_unavailable: string[];
}

export interface ContextInput {
  doc: ReadResult;
  volume: string | null;
}

const unique = (xs: ReadonlyArray<string | null | undefined>): string[] => [...new Set(xs.filter((x): x is string => typeof x === 'string' && x !== ''))];

function datesOf(docs: readonly ReadResult[]): string[] {
  const days = docs.map((d) => (Number.isFinite(d.timestamp) && d.timestamp > 0 ? new Date(d.timestamp * 1000).toISOString().slice(0, 10) : null))
    .filter((x): x is string => x !== null).sort();
  return days.length === 0 ? [] : unique([days[0], days[days.length - 1]]);
}

/** A job's measured period, ms: its longest instance's (volbench's runtime_ns), else fio's per direction (job_runtime sums instances). */
function jobMs(d: ReadResult, i: number): number {
  const ns = d.volbench?.jobs?.[i]?.runtime_ns;
  if (typeof ns === 'number' && ns > 0) return ns / 1e6;
  const j = d.jobs[i];
  return Math.max(0, ...[j.read, j.write, j.trim].map((s) => (typeof s?.runtime === 'number' ? s.runtime : 0)));
}

function runtimeOf(docs: readonly ReadResult[]): number | null {
  const longest = Math.max(0, ...docs.flatMap((d) => d.jobs.map((_, i) => jobMs(d, i))));
  return longest > 0 ? Math.round(longest / 1000) : null;
}

/** The context of the results in `rows` (each a document and its row's volume), with the caller's command. */
export function reportContext(rows: readonly ContextInput[], suites: readonly string[], command: string | undefined): ReportContext {
  const docs = [...new Set(rows.map((r) => r.doc))];
  const clouds = docs.map((d) => d.volbench?.cloud);
  const scales = clouds.map((c) => c?.emulation).filter((s): s is VolbenchEmulation => s !== undefined);
  const stats = docs.flatMap((d) => (d.volbench?.jobs ?? []).map((j) => j.ebs_stats?.source));
  return {
    volumes: unique(rows.map((r) => r.volume)),
    instance_types: unique(clouds.map((c) => c?.instance_type)),
    zones: unique(clouds.map((c) => c?.availability_zone)),
    suites: [...suites],
    runtime_s: runtimeOf(docs),
    dates: datesOf(docs),
    fleet_ids: unique(clouds.map((c) => c?.fleet?.id)),
    command: command ?? null,
    rehearsal: scales[0] ?? null,
    ebs_stats: stats.includes('nvme') ? 'nvme' : stats.includes('emulated') ? 'emulated' : null,
    ebs_stats_unavailable: unique(docs.map((d) => d.volbench?.ebs_stats_unavailable)),
  };
}

/** The report's title: what it compares, on what. */
export function reportTitle(c: ReportContext): string {
  const what = c.suites.length ? c.suites.join(' and ') : 'volbench';
  const on = c.volumes.length === 1 ? c.volumes[0] : c.volumes.length ? `${c.volumes.length} volumes` : '';
  const inst = c.instance_types.length === 1 ? `, ${c.instance_types[0]}` : '';
  return `${what}${on ? ` on ${on}` : ''}${inst}${c.rehearsal ? ' (rehearsal)' : ''}`;
}

/** `gp3 …, io2 … · m6i.large · us-east-1a · aws-ssd · 180 s per test · 2026-11-29 · fleet vb01… · volbench fleet compare …`. */
export function contextLine(c: ReportContext): string {
  const parts = [
    c.volumes.join(', '),
    c.instance_types.join(', '),
    c.zones.join(', '),
    c.suites.join(', '),
    c.runtime_s !== null ? `${c.runtime_s.toLocaleString('en-US')} s per test` : '',
    c.dates.join(' – '),
    c.fleet_ids.length ? `fleet ${c.fleet_ids.join(', ')}` : '',
    c.ebs_stats ? `binding limits measured (${c.ebs_stats === 'emulated' ? "the emulated volumes' statistics" : 'EBS statistics'})` : '',
    c.command ?? '',
  ];
  return parts.filter((p) => p !== '').join(' · ');
}

/**
 * The banner a rehearsal's report opens with, or null for real volumes: the scale, and that its
 * prices divide AWS's price by the rates unscaled (cells.ts), not by the emulated ones.
 */
export function rehearsalBanner(c: ReportContext): string | null {
  return c.rehearsal ? `${emulationBanner(c.rehearsal)}; $ per IOPS and per MiB/s on the rates unscaled (measured ÷ ${c.rehearsal.rate})` : null;
}

/** Said once: where no statistics page was read, why, and that the binding limits are the model's. */
export function ebsStatsNote(c: ReportContext): string | null {
  if (c.ebs_stats_unavailable.length === 0) return null;
  return `EBS statistics not read (${c.ebs_stats_unavailable.join('; ')}): the binding limits there are the model's.`;
}
