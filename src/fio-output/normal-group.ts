/**
 * The tail of fio's normal output: "Run status group N (all jobs):" with one line per direction
 * (stat.c show_group_stats, show_mixed_group_stats) and "Disk stats (read/write):"
 * (print_disk_util).
 */
import type { DiskUtil } from './types.js';
import type { GroupRunStats } from './group-stats.js';
import { num2str } from './num2str.js';
import { fixedWidth, formatInteger } from './printf.js';

const LABELS = ['   READ', '  WRITE', '   TRIM'];
const SIG_FIGS = 4;

interface GroupLine {
  ioBytes: number;
  agg: number;
  minBw: number;
  maxBw: number;
  minRun: number;
  maxRun: number;
}

function lineText(label: string, l: GroupLine, pow2: boolean): string {
  const v = (n: number, p2: boolean) => num2str(n, SIG_FIGS, 1, p2, 'bytepersec');
  const io = (p2: boolean) => num2str(l.ioBytes, SIG_FIGS, 1, p2, 'byte');
  return (
    `${label}: bw=${v(l.agg, pow2)} (${v(l.agg, !pow2)}), ` +
    `${v(l.minBw, pow2)}-${v(l.maxBw, pow2)} (${v(l.minBw, !pow2)}-${v(l.maxBw, !pow2)}), ` +
    `io=${io(pow2)} (${io(!pow2)}), run=${formatInteger(l.minRun)}-${formatInteger(l.maxRun)}msec\n`
  );
}

function directionLine(rs: GroupRunStats, d: number): GroupLine {
  return { ioBytes: rs.ioBytes[d], agg: rs.agg[d], minBw: rs.minBw[d], maxBw: rs.maxBw[d], minRun: rs.minRun[d], maxRun: rs.maxRun[d] };
}

/** unified_rw_reporting=both adds a MIXED line: sums of bytes and aggregates, extremes of the rest. */
function mixedLine(rs: GroupRunStats): GroupLine {
  const used = [0, 1, 2].filter((d) => rs.maxRun[d]);
  const pick = (f: (d: number) => number) => used.map(f);
  return {
    ioBytes: pick((d) => rs.ioBytes[d]).reduce((a, b) => a + b, 0),
    agg: pick((d) => rs.agg[d]).reduce((a, b) => a + b, 0),
    minBw: Math.min(...pick((d) => rs.minBw[d])),
    maxBw: Math.max(0, ...pick((d) => rs.maxBw[d])),
    minRun: Math.min(...pick((d) => rs.minRun[d])),
    maxRun: Math.max(0, ...pick((d) => rs.maxRun[d])),
  };
}

export function groupText(rs: GroupRunStats): string {
  const pow2 = rs.kbBase === 1024;
  let out = `\nRun status group ${rs.groupid} (all jobs):\n`;
  for (let d = 0; d < 3; d++) {
    if (!rs.maxRun[d]) continue;
    out += lineText(rs.unified === 'mixed' ? '  MIXED' : LABELS[d], directionLine(rs, d), pow2);
  }
  if (rs.unified === 'both' && rs.maxRun.some((r) => r)) out += lineText('  MIXED', mixedLine(rs), pow2);
  return out;
}

type DiskUtilJson = DiskUtil & Partial<Record<
  'aggr_read_ios' | 'aggr_write_ios' | 'aggr_read_merges' | 'aggr_write_merge' |
  'aggr_read_ticks' | 'aggr_write_ticks' | 'aggr_in_queue' | 'aggr_util', number>>;

/** A device with slaves (md, dm) is indented and followed by its slaves' averages. */
function diskLine(du: DiskUtilJson): string {
  const i = formatInteger;
  const slaves = du.aggr_util !== undefined;
  let out =
    `${slaves ? '  ' : ''}  ${du.name}: ios=${i(du.read_ios)}/${i(du.write_ios)}, ` +
    `merge=${i(du.read_merges)}/${i(du.write_merges)}, ticks=${i(du.read_ticks)}/${i(du.write_ticks)}, ` +
    `in_queue=${i(du.in_queue)}, util=${fixedWidth(du.util, 2, 3)}%`;
  if (slaves) {
    out +=
      `, aggrios=${i(du.aggr_read_ios ?? 0)}/${i(du.aggr_write_ios ?? 0)}, ` +
      `aggrmerge=${i(du.aggr_read_merges ?? 0)}/${i(du.aggr_write_merge ?? 0)}, ` +
      `aggrticks=${i(du.aggr_read_ticks ?? 0)}/${i(du.aggr_write_ticks ?? 0)}, ` +
      `aggrin_queue=${i(du.aggr_in_queue ?? 0)}, aggrutil=${fixedWidth(du.aggr_util ?? 0, 2, 3)}%`;
  }
  return out + '\n';
}

export function diskText(disks: readonly DiskUtil[] | undefined): string {
  if (!disks?.length) return '';
  return '\nDisk stats (read/write):\n' + disks.map((d) => diskLine(d)).join('');
}
