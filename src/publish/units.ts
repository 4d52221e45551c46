/**
 * The throughput unit a report is read in: MiB/s (2^20 bytes, fio's default) or MB/s (10^6,
 * what KDiskMark and the providers' pages print). Only the human formats change; the JSON keeps
 * the model's MiB/s and fio's own units whatever is chosen.
 */
import { VolbenchError } from '../errors.js';

export const THROUGHPUT_UNITS = ['MiB/s', 'MB/s'] as const;
export type ThroughputUnit = (typeof THROUGHPUT_UNITS)[number];

/** Bytes per second of one unit. */
const BYTES: Readonly<Record<ThroughputUnit, number>> = { 'MiB/s': 1024 * 1024, 'MB/s': 1e6 };

/** A MiB/s figure in `unit`. */
export function inUnit(mibps: number, unit: ThroughputUnit): number {
  return (mibps * BYTES['MiB/s']) / BYTES[unit];
}

/** `--units`: MiB/s or MB/s (also mib, mb, any case). */
export function parseUnits(text: string, field = '--units'): ThroughputUnit {
  const t = text.trim().toLowerCase().replace(/\/s$/, '');
  if (t === 'mib') return 'MiB/s';
  if (t === 'mb') return 'MB/s';
  throw new VolbenchError('EINVALID_VALUE', `${field} takes MiB/s or MB/s, not '${text}'`, { field, accepted: THROUGHPUT_UNITS.join(', ') });
}

/** Cents, or two significant digits under ten cents (a tmpfs's 1.7 M IOPS cost $0.0047 per 1,000). */
export function dollars(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '';
  return v > 0 && v < 0.1 ? v.toPrecision(2) : v.toFixed(2);
}
