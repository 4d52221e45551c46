/**
 * The right-hand side of an assertion: a number with the unit its metric is measured in.
 * Units here are the usual IEC and SI ones (KiB = 1024, KB = 1000), not fio's compatibility
 * mode where `KiB` means 1000: a gate is read by people, not by fio.
 */
import { VolbenchError } from '../errors.js';
import { ownValue } from '../own-key.js';

/** How a metric's values are written and measured. */
export type ValueKind = 'count' | 'bandwidth' | 'bytes' | 'time' | 'errno';

/** The unit measured values are held in, per kind. */
export const BASE_UNIT: Record<ValueKind, string> = {
  count: 'IOPS',
  bandwidth: 'B/s',
  bytes: 'B',
  time: 'ns',
  errno: 'errno',
};

export const VALUE_ACCEPTED: Record<ValueKind, string> = {
  count: 'a number, optionally with k, M or G (3000, 3k, 1.5M)',
  bandwidth: 'a rate with its unit: B/s, KB/s, MB/s, GB/s, TB/s (powers of 1000) or KiB/s, MiB/s, GiB/s, TiB/s (powers of 1024), e.g. 500MiB/s',
  bytes: 'bytes with an optional unit: B, KB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB or k, m, g, t (powers of 1024)',
  time: 'a time with an optional unit: ns, us (or µs), ms, s; a plain number is nanoseconds (2ms, 500us, 250000)',
  errno: 'an errno number (0 for no error)',
};

export interface ParsedValue {
  /** In the kind's base unit. */
  value: number;
  /** The unit as written ('' when none), used to print measured values the same way. */
  unit: string;
}

/** A plain decimal number at the start of a text: `3`, `1.5`, `.5`. */
const NUMBER_PREFIX = /^(?:\d+(?:\.\d+)?|\.\d+)/;

const COUNT_MULT: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 };
const TIME_MULT: Record<string, number> = { '': 1, ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };
const PREFIX_POWER: Record<string, number> = { '': 0, k: 1, K: 1, M: 2, G: 3, T: 4 };

/** fio's single-letter size units (powers of 1024, fio's default kb_base). */
const FIO_LETTER: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** B, KB, KiB, ... to a multiplier. */
function byteMultiplier(unit: string): number | undefined {
  const m = /^([kKMGT]?)(i?)B$/.exec(unit);
  if (!m) return undefined;
  return (m[2] === 'i' ? 1024 : 1000) ** PREFIX_POWER[m[1]];
}

function multiplier(kind: ValueKind, unit: string): number | undefined {
  switch (kind) {
    case 'count':
      return ownValue(COUNT_MULT, unit);
    case 'time':
      return ownValue(TIME_MULT, unit);
    case 'bytes':
      return unit === '' ? 1 : (ownValue(FIO_LETTER, unit) ?? byteMultiplier(unit));
    case 'bandwidth': {
      // A bare number is refused: fio's own `bw` field is KiB/s, so a bare number is a trap.
      const m = /^(.*B)(?:\/s|ps)$/.exec(unit);
      return m ? byteMultiplier(m[1]) : undefined;
    }
    case 'errno':
      return unit === '' ? 1 : undefined;
  }
}

/**
 * `3000`, `2 ms`: the number, then the unit after optional blanks. Split in two steps because
 * one regex (`\d+ ... \s*(\S*)`) lets the unit's `\S*` retake the digits, which backtracks
 * quadratically on a long run of digits that does not match.
 */
function splitNumber(text: string): { number: string; unit: string } | null {
  const m = NUMBER_PREFIX.exec(text);
  if (!m) return null;
  const unit = text.slice(m[0].length).trimStart();
  return /\s/.test(unit) ? null : { number: m[0], unit };
}

/** Parses `text` as a value of `kind`; `field` names the assertion in the error. */
export function parseValue(text: string, kind: ValueKind, field: string): ParsedValue {
  const split = splitNumber(text.trim());
  const mult = split ? multiplier(kind, split.unit) : undefined;
  if (!split || mult === undefined) {
    throw new VolbenchError('EINVALID_VALUE', `'${text.trim()}' is not ${kindName(kind)}`, {
      field,
      accepted: VALUE_ACCEPTED[kind],
    });
  }
  const value = Number(split.number) * mult;
  if (kind === 'errno' && !Number.isInteger(value)) {
    throw new VolbenchError('EINVALID_VALUE', `'${text.trim()}' is not an errno number`, { field, accepted: VALUE_ACCEPTED.errno });
  }
  return { value, unit: split.unit };
}

function kindName(kind: ValueKind): string {
  return { count: 'a count', bandwidth: 'a bandwidth', bytes: 'a size', time: 'a time', errno: 'an errno' }[kind];
}

/** Trims a fixed-point number to at most `digits` decimals, without trailing zeros. */
function trimmed(x: number, digits: number): string {
  return x.toFixed(digits).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}

/** A time in the largest unit that keeps it at 1 or more (µs, ms, s), for tables. */
export function formatTimeNs(ns: number): string {
  if (ns >= 1e9) return `${trimmed(ns / 1e9, 2)}s`;
  if (ns >= 1e6) return `${trimmed(ns / 1e6, 2)}ms`;
  if (ns >= 1e3) return `${trimmed(ns / 1e3, 2)}us`;
  return `${trimmed(ns, 0)}ns`;
}

/** A value of `kind` in `unit` as the user wrote it (base unit when none), e.g. "2.41ms". */
export function formatValue(value: number, kind: ValueKind, unit = ''): string {
  const mult = unit === '' ? undefined : multiplier(kind, unit);
  // In the user's unit unless that would print 0 for a value that is not (131ns in ms).
  if (mult !== undefined && (value === 0 || Math.abs(value / mult) >= 0.01)) return `${trimmed(value / mult, 2)}${unit}`;
  switch (kind) {
    case 'time':
      return formatTimeNs(value);
    case 'bandwidth':
      return `${trimmed(value / 1024 ** 2, 2)}MiB/s`;
    case 'count':
      return `${trimmed(value, 1)} IOPS`;
    case 'bytes':
      return `${trimmed(value, 0)}B`;
    case 'errno':
      return String(value);
  }
}
