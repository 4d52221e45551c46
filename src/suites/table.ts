/**
 * The short human summary `volbench suite` prints on stderr: a row per test and direction with
 * IOPS, MiB/s and the mean and 99th percentile completion latency, plus the median over the
 * loops when a test ran more than once.
 */
import { directionsWithIo, latencyPercentile } from '../gates/metrics.js';
import { formatTimeNs } from '../gates/values.js';
import { jobRatio } from '../fio-output/entitled.js';
import type { FioDirStats, FioResult } from '../fio-output/fio-result.js';
import { SHORT_TEST_NOTE } from './merge.js';

const MiB = 1024 * 1024;

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
}

function iopsText(iops: number): string {
  return iops >= 100 ? Math.round(iops).toString() : iops.toFixed(1);
}

/** `18.08× volume-iops ⚑`, or `-` for a job without an entitlement. */
function ratioText(result: FioResult, index: number): string {
  const r = jobRatio(result, index);
  return r ? `${r.ratio.toFixed(2)}× ${r.bound_by}${r.flag ? ' ⚑' : ''}` : '-';
}

/** The table as text, newline-terminated. */
export function suiteTable(result: FioResult): string {
  const loops = result.volbench.suite?.loops ?? 1;
  const header = ['test', 'dir', 'IOPS', 'MiB/s', 'clat mean', 'clat p99'];
  if (loops > 1) header.push('median IOPS', 'median MiB/s');
  // With --volume: measured over what the volume allows the test, and what bound it.
  const entitled = result.jobs.some((_, i) => jobRatio(result, i) !== null);
  if (entitled) header.push('meas/entitled');
  const rows: string[][] = [header];
  result.jobs.forEach((job, i) => {
    const median = result.volbench.jobs[i]?.loops?.median;
    for (const dir of directionsWithIo(job)) {
      const s = job[dir] as FioDirStats;
      const p99 = latencyPercentile(s.clat_ns, 99);
      const row = [job.jobname, dir, iopsText(s.iops), (s.bw_bytes / MiB).toFixed(2),
        s.clat_ns.N ? formatTimeNs(s.clat_ns.mean) : '-', p99 === null ? '-' : formatTimeNs(p99)];
      if (loops > 1) {
        const m = dir === 'mixed' ? undefined : median?.[dir];
        row.push(m ? iopsText(m.iops) : '-', m ? (m.bw_bytes / MiB).toFixed(2) : '-');
      }
      if (entitled) row.push(ratioText(result, i));
      if (job.error) row.push(`error ${job.error}`);
      rows.push(row);
    }
    if (directionsWithIo(job).length === 0) rows.push([job.jobname, '-', '-', '-', '-', '-', ...(job.error ? [`error ${job.error}`] : [])]);
  });
  const widths = header.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const title = `${result.volbench.suite?.name ?? 'suite'}${loops > 1 ? ` (best of ${loops} loops)` : ''}`;
  const flagged = entitled && result.jobs.some((_, i) => jobRatio(result, i)?.flag);
  const legend = flagged ? '⚑ above 1.10× what the volume allows: not the named volume, the page cache, or the model is wrong\n' : '';
  return `${title}\n${rows.map((r) => pad(r, widths)).join('\n')}\n${legend}${notesText(result)}`;
}

/** What a test did otherwise than asked, a line each; the tests too short to trust on one line. */
function notesText(result: FioResult): string {
  const short: string[] = [];
  const lines: string[] = [];
  for (const vj of result.volbench.jobs) {
    for (const n of vj.notes ?? []) {
      if (n.endsWith(SHORT_TEST_NOTE)) short.push(`${vj.jobname} (${n.slice('measured for '.length, n.indexOf(':'))})`);
      else lines.push(`note: ${vj.jobname}: ${n}\n`);
    }
  }
  const shortLine = short.length ? `note: ${short.join(', ')}: ${SHORT_TEST_NOTE}\n` : '';
  return lines.join('') + shortLine;
}
