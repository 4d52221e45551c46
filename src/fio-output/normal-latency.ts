/**
 * The latency pieces of fio's normal output (stat.c): the min/max/avg/stdev line with its unit
 * choice (display_lat), the percentile table (show_clat_percentiles) and the "lat (usec)   :"
 * distribution lines (show_lat).
 */
import type { FioLatStats } from './fio-result.js';
import { num2str } from './num2str.js';
import { fixedWidth, formatFixed, integerWidth } from './printf.js';

/**
 * "    clat (usec): min=..., max=..., avg=..., stdev=...". Scaled to msec or usec only when min,
 * max and stdev are all large enough (stat.h nsec_to_msec / nsec_to_usec), so a job with a
 * 130 ns outlier keeps nsec and shows "max=3762.4k".
 */
export function latLine(name: string, s: FioLatStats): string {
  if (!s.N) return '';
  let { min, max, mean, stddev } = s;
  let unit = 'nsec';
  if (min > 2_000_000 && max > 99_999_999 && stddev > 1_000_000) {
    [min, max, mean, stddev, unit] = [Math.floor(min / 1e6), Math.floor(max / 1e6), mean / 1e6, stddev / 1e6, 'msec'];
  } else if (min > 2000 && max > 99_999 && stddev > 1000) {
    [min, max, mean, stddev, unit] = [Math.floor(min / 1000), Math.floor(max / 1000), mean / 1000, stddev / 1000, 'usec'];
  }
  const n = (v: number) => num2str(v, 6, 1, false, 'none');
  return `    ${name} (${unit}): min=${n(min)}, max=${n(max)}, avg=${fixedWidth(mean, 2, 5)}, stdev=${fixedWidth(stddev, 2, 5)}\n`;
}

/** Digits after the point of the percentile list as typed; recovered from the "%f" keys. */
export function keyPrecision(key: string): number {
  const decimals = key.split('.')[1] ?? '';
  return decimals.replace(/0+$/, '').length;
}

/**
 * The table: unit picked from the smallest and largest value, values rounded up to it, as many
 * `p th=[v]` cells per line as fit in 80 columns.
 */
export function percentileTable(pre: string, table: Record<string, number> | undefined, precision: number): string {
  const cells = Object.entries(table ?? {}).map(([k, v]) => [Number(k), v] as const);
  if (!cells.length) return '';
  const values = cells.map(([, v]) => v);
  const minv = Math.min(...values);
  const maxv = Math.max(...values);
  let [scale, divisor, unit] = [0, 1, 'nsec'];
  if (minv > 2_000_000 && maxv > 99_999_999) [scale, divisor, unit] = [2, 1e6, 'msec'];
  else if (minv > 2000 && maxv > 99_999) [scale, divisor, unit] = [1, 1000, 'usec'];
  const width = Math.max(5, Math.trunc(Math.log10(Math.floor(maxv / divisor)) + 1));
  const perLine = Math.floor((80 - 7) / (precision + 10 + width));
  let out = `    ${pre} percentiles (${unit}):\n     |`;
  cells.forEach(([p, v], j) => {
    if (j !== 0 && j % perLine === 0) out += '     |';
    const last = j === cells.length - 1;
    let shown = v;
    for (let i = 0; i < scale; i++) shown = Math.floor((shown + 999) / 1000);
    out += ` ${fixedWidth(p, precision, precision + 3)}th=[${integerWidth(shown, width)}]${last ? '\n' : ','}`;
    if (!last && j % perLine === perLine - 1) out += '\n';
  });
  return out;
}

/** "  lat (usec)   : 250=42.24%, 500=45.49%": non-zero buckets, five per line. */
export function distributionLines(unit: string, buckets: Record<string, number> | undefined): string {
  let out = '';
  let onLine = 0;
  for (const [range, pct] of Object.entries(buckets ?? {})) {
    if (pct <= 0) continue;
    if (onLine === 0 || onLine === 5) {
      if (out) out += '\n';
      out += `  lat (${unit})   : `;
      onLine = 0;
    }
    if (onLine) out += ', ';
    out += `${range}=${formatFixed(pct, 2).padStart(3, ' ')}%`;
    onLine++;
  }
  return out ? out + '\n' : '';
}
