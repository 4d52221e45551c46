/**
 * `percentile_list=99.5:99.9`: the latency percentiles fio reports instead of its default list.
 */
import { invalidValue } from './fail.js';
import { parseDecimal } from './units.js';

/** fio's FIO_IO_U_LIST_MAX_LEN. */
export const PERCENTILE_LIST_MAX = 20;

/** fio's default list (options.c `percentile_list` .def). */
export const DEFAULT_PERCENTILES: readonly number[] = [
  1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
];

export const PERCENTILE_LIST_ACCEPTED =
  `up to ${PERCENTILE_LIST_MAX} numbers in (0, 100] separated by colons, e.g. 50:90:99:99.9`;

/** Parsed, range-checked and sorted ascending (fio sorts the list before it reports). */
export function parsePercentileList(text: string, ctx: { field?: string } = {}): number[] {
  const field = ctx.field ?? 'value';
  const parts = text.split(':');
  if (parts.length > PERCENTILE_LIST_MAX) {
    const why = `'${text}' has ${parts.length} entries, more than ${PERCENTILE_LIST_MAX}`;
    throw invalidValue(field, why, PERCENTILE_LIST_ACCEPTED);
  }
  const values = parts.map((part) => {
    const value = parseDecimal(part, { field, accepted: PERCENTILE_LIST_ACCEPTED });
    if (value <= 0 || value > 100) throw invalidValue(field, `${part.trim()} is not in (0, 100]`, PERCENTILE_LIST_ACCEPTED);
    return value;
  });
  return values.sort((a, b) => a - b);
}
