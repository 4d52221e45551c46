/**
 * One direction of a job in fio's normal output (stat.c show_ddir_status): the IOPS/BW line,
 * slat/clat/lat lines, percentile tables, and the bw and iops sample lines.
 */
import type { FioDirStats, FioSyncStats } from './fio-result.js';
import { num2str, type N2sUnit } from './num2str.js';
import { fixedWidth, formatInteger, integerWidth, mulDiv } from './printf.js';
import { latLine, percentileTable } from './normal-latency.js';

export interface DirectionStyle {
  /** "read", "write", "trim" or "mixed". */
  name: string;
  /** The group's kb_base: 1024 prints IEC first, 1000 SI first. */
  kbBase: number;
  /** Significant figures (fio's default 4) and bandwidth unit of the job. */
  sigFigs: number;
  bwUnit: N2sUnit;
  /** Percentile digits after the point. */
  precision: number;
  /** Text after the BW line (fio appends "; 0 zone resets" to writes). */
  suffix: string;
}

function headline(d: FioDirStats, s: DirectionStyle): string {
  const pow2 = s.kbBase === 1024;
  const bw = mulDiv(d.io_bytes, 1000, d.runtime);
  const iops = mulDiv(d.total_ios, 1000, d.runtime);
  const iopsText = num2str(iops, s.sigFigs, 1, false, 'none');
  const bwText = num2str(bw, s.sigFigs, 1, pow2, s.bwUnit);
  const bwAlt = num2str(bw, s.sigFigs, 1, !pow2, s.bwUnit);
  const io = num2str(d.io_bytes, s.sigFigs, 1, pow2, 'byte');
  return `  ${s.name}: IOPS=${iopsText}, BW=${bwText} (${bwAlt})(${io}/${formatInteger(d.runtime)}msec)${s.suffix}\n`;
}

/** KiB/s, or MiB/s once the mean passes kb_base² KiB/s (fio says "MiB" even with kb_base=1000). */
function bwSamplesLine(d: FioDirStats, kbBase: number): string {
  if (!d.bw_samples) return '';
  let [min, max, mean, dev] = [d.bw_min, d.bw_max, d.bw_mean, d.bw_dev];
  let unit = kbBase === 1024 ? 'KiB' : 'kB';
  if (mean > kbBase * kbBase) {
    [min, max, mean, dev, unit] = [Math.trunc(min / kbBase), Math.trunc(max / kbBase), mean / kbBase, dev / kbBase, 'MiB'];
  }
  return (
    `   bw (${unit.padStart(5, ' ')}/s): min=${integerWidth(min, 5)}, max=${integerWidth(max, 5)}, ` +
    `per=${fixedWidth(d.bw_agg, 2, 3)}%, avg=${fixedWidth(mean, 2, 5)}, stdev=${fixedWidth(dev, 2, 5)}, ` +
    `samples=${formatInteger(d.bw_samples)}\n`
  );
}

function iopsSamplesLine(d: FioDirStats): string {
  if (!d.iops_samples) return '';
  return (
    `   iops        : min=${integerWidth(d.iops_min, 5)}, max=${integerWidth(d.iops_max, 5)}, ` +
    `avg=${fixedWidth(d.iops_mean, 2, 5)}, stdev=${fixedWidth(d.iops_stddev, 2, 5)}, ` +
    `samples=${formatInteger(d.iops_samples)}\n`
  );
}

export function directionText(d: FioDirStats, s: DirectionStyle): string {
  if (!d.runtime) return '';
  return (
    headline(d, s) +
    latLine('slat', d.slat_ns) +
    latLine('clat', d.clat_ns) +
    latLine(' lat', d.lat_ns) +
    percentileTable('slat', d.slat_ns.percentile, s.precision) +
    percentileTable('clat', d.clat_ns.percentile, s.precision) +
    percentileTable('lat', d.lat_ns.percentile, s.precision) +
    bwSamplesLine(d, s.kbBase) +
    iopsSamplesLine(d)
  );
}

/** fsync/fdatasync latencies, printed after the latency distribution. */
export function syncText(sync: FioSyncStats | undefined, precision: number): string {
  if (!sync?.lat_ns.N) return '';
  return (
    '  fsync/fdatasync/sync_file_range:\n' +
    latLine('sync', sync.lat_ns) +
    percentileTable('sync', sync.lat_ns.percentile, precision)
  );
}
