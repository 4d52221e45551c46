/**
 * The analyses' normal output: the sweep's curve and optimum as drvperf prints them (the
 * optimum with its speedup over depth 1 and its latency), the speed along the volume, the
 * seek and rotation figures. Reads the document's `volbench` sections only.
 */
import { formatTimeNs } from '../gates/values.js';
import type { FioResult } from '../fio-output/fio-result.js';
import type { VolbenchRotational, VolbenchSweep, VolbenchUniformity } from '../fio-output/analysis-sections.js';

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
}

function table(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [pad(header, widths), ...rows.map((r) => pad(r, widths))].map((l) => `${l}\n`).join('');
}

const fixed = (x: number, digits: number): string => x.toFixed(digits);
const iops = (x: number): string => Math.round(x).toString();
const mib = (bytes: number): string => fixed(bytes / 1024 ** 2, 1);

const STOPS: Record<VolbenchSweep['stopped'], string> = {
  max_depth: 'reached the highest depth',
  flat: 'IOPS grew less than 5% over two doublings',
  max_p99: 'p99 passed the limit',
  cancelled: 'cancelled',
  error: 'a point ended with an I/O error',
};

export function formatSweep(sweep: VolbenchSweep): string {
  const what = sweep.over === 'iodepth' ? 'depth' : 'jobs';
  const rows = sweep.points.map((p) => [
    String(p.value), iops(p.iops), mib(p.bw_bytes), formatTimeNs(p.clat_mean_ns), formatTimeNs(p.clat_p50_ns),
    formatTimeNs(p.clat_p99_ns), formatTimeNs(p.clat_p999_ns), fixed(p.score, 3),
  ]);
  const limit = sweep.max_p99_ns === null ? '' : `, p99 up to ${formatTimeNs(sweep.max_p99_ns)}`;
  let text = `sweep over ${sweep.over} 1..${sweep.max_depth} (alpha ${sweep.alpha}${limit}): ${STOPS[sweep.stopped]}\n`;
  text += table([what, 'IOPS', 'MiB/s', 'clat mean', 'p50', 'p99', 'p99.9', 'score'], rows);
  const o = sweep.optimum;
  if (o === null) return `${text}no optimum: no point did any I/O\n`;
  return `${text}optimal ${sweep.over} ${o.value}: ${iops(o.iops)} IOPS, ${fixed(o.speedup, 2)}x ${what} 1, ` +
    `latency ${formatTimeNs(o.clat_mean_ns)} (p99 ${formatTimeNs(o.clat_p99_ns)})\n`;
}

/** Sizes and offsets in MiB, speeds in MiB/s: one unit on the screen (the JSON keeps MB/s). */
export const uniformityMiB = (bytes: number): string => `${mib(bytes)}MiB`;
export const uniformityMiBps = (mbps: number): string => `${fixed((mbps * 1e6) / 1024 ** 2, 1)}MiB/s`;

export function formatUniformity(u: VolbenchUniformity): string {
  const what = u.initialize ? 'initialize (every block read once)' : `${u.rw} probes of ${uniformityMiB(u.probe_bytes)}`;
  let text = `uniformity: ${u.series.length} chunks of ${uniformityMiB(u.chunk_bytes)} over ${uniformityMiB(u.target_bytes)}, ${what}` +
    `${u.complete ? '' : ' (cut short)'}\n`;
  text += table(['chunk', 'offset MiB', 'MiB/s'], u.series.map((c) => [String(c.index), mib(c.offset), fixed((c.mbps * 1e6) / 1024 ** 2, 1)]));
  return `${text}min ${uniformityMiBps(u.min_mbps)} at ${uniformityMiB(u.min_offset)}, avg ${uniformityMiBps(u.avg_mbps)}, ` +
    `max ${uniformityMiBps(u.max_mbps)} at ${uniformityMiB(u.max_offset)} (max/min ${fixed(u.spread, 2)})\n`;
}

const time = (ns: number | null): string => (ns === null ? 'n/a' : formatTimeNs(ns));

export function formatRotational(r: VolbenchRotational): string {
  const says = r.rotational === null ? 'does not say whether it is rotational' : r.rotational ? 'is rotational' : 'is not rotational';
  return [
    `rotational: the target ${says}${r.forced ? ' (forced)' : ''}`,
    `long jumps:  ${r.long_samples} timed, ${r.long_outliers} outliers dropped, median ${time(r.long_median_ns)}`,
    `short jumps: ${r.short_samples} timed, ${r.short_outliers} outliers dropped, median ${time(r.short_median_ns)}`,
    `revolution ${time(r.revolution_ns)} (${r.rpm === null ? 'n/a' : Math.round(r.rpm)} RPM), full-stroke seek ${time(r.full_stroke_seek_ns)}, ` +
      `track-to-track ${time(r.track_to_track_ns)}`,
    ...(r.plausible ? [] : ['no spinning disk turns at that speed: the device does not behave as a rotational one']),
  ].map((l) => `${l}\n`).join('');
}

/** The normal text of whichever analysis made the document ('' for a plain run). */
export function formatAnalysis(result: FioResult): string {
  const v = result.volbench;
  return [v.sweep && formatSweep(v.sweep), v.uniformity && formatUniformity(v.uniformity), v.rotational && formatRotational(v.rotational)]
    .filter((t): t is string => Boolean(t))
    .join('\n');
}
