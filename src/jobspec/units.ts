/**
 * fio's scalar value parsers: sizes with unit suffixes, percentages, times, integers, booleans
 * and the random seed. They follow fio 3.33's parse.c (str_to_decimal, __get_mult_bytes,
 * get_mult_time, check_int) for every value fio reads the way its HOWTO documents, and refuse
 * the values fio silently misreads (`1.5g` is 1 byte to fio, `10sec` is 10 microseconds).
 */
import { VolbenchError } from '../errors.js';
import type { SizeOrPercent } from './types.js';
import { invalidValue, unsupported } from './fail.js';
import { ownValue } from '../own-key.js';

/** fio's kb_base: what `k`, `m`, ... multiply by. */
export type KbBase = 1000 | 1024;

export interface UnitContext {
  /** Spec path named in errors, e.g. `jobs[0].bs`. */
  field?: string;
  /** kb_base of the section the value was written in (fio's default: 1024). */
  kbBase?: KbBase;
}

export const SIZE_ACCEPTED =
  'a whole number of bytes with an optional unit: k, m, g, t, p (powers of kb_base, default ' +
  '1024; also kb, ki, mb, ...), KiB, MiB, GiB, TiB, PiB (powers of the other base, as fio), ' +
  'b for bytes; or hex such as 0x1000';

const UNIT_POWERS: Record<string, number> = { k: 1, m: 2, g: 3, t: 4, p: 5 };

/**
 * fio's unit multiplier. With kb_base=1024 (fio's "compatibility mode") `KiB` means 1000 and
 * `k` 1024; with kb_base=1000 it is the other way round. Only the full `...iB` form switches
 * base: parse.c compares three characters ("kib"), so `4ki` is 4 * kb_base, which fio 3.33
 * really does (its HOWTO table, which says `1mi` is 1000000 under kb_base=1024, is wrong).
 */
function unitMultiplier(suffix: string, kbBase: KbBase): number | undefined {
  const unit = suffix.toLowerCase();
  if (unit === '' || unit === 'b') return 1;
  const m = /^([kmgtp])(i?)(b?)$/.exec(unit);
  if (!m) return undefined;
  const otherBase = kbBase === 1024 ? 1000 : 1024;
  const base = m[2] === 'i' && m[3] === 'b' ? otherBase : kbBase;
  return base ** UNIT_POWERS[m[1]];
}

function safeWhole(value: number, field: string, accepted: string): number {
  if (!Number.isSafeInteger(value)) {
    throw invalidValue(field, `value ${value} is larger than volbench can hold (2^53 - 1)`, accepted);
  }
  return value;
}

/** A size: digits with an optional unit, or hex. Negative and fractional values are refused. */
function parseSizeText(text: string, ctx: UnitContext, percentAllowed: boolean): SizeOrPercent {
  const field = ctx.field ?? 'value';
  const trimmed = text.trim();
  if (/^0x[0-9a-f]+$/i.test(trimmed)) {
    return { bytes: safeWhole(Number.parseInt(trimmed.slice(2), 16), field, SIZE_ACCEPTED) };
  }
  if (trimmed.startsWith('(')) {
    throw unsupported(field, `arithmetic expressions such as '${trimmed}' are not supported by volbench yet`, SIZE_ACCEPTED);
  }
  const m = /^(\d+)([a-z%]*)$/i.exec(trimmed);
  if (!m) {
    const hint = /^\d+\.\d/.test(trimmed) ? ' (fio reads only whole numbers and would cut the fraction)' : '';
    throw invalidValue(field, `'${text}' is not a size${hint}`, SIZE_ACCEPTED);
  }
  const digits = Number(m[1]);
  if (percentAllowed && m[2].toLowerCase() === 'z') {
    // fio's zoned block device mode counts size and offsets in zones (FIO_OPT_STR_VAL_ZONE).
    throw unsupported(field, `a size in zones ('${text}') is not supported by volbench yet`, SIZE_ACCEPTED);
  }
  if (m[2] === '%') {
    if (!percentAllowed) throw invalidValue(field, `'${text}': a percentage is not accepted here`, SIZE_ACCEPTED);
    return { percent: digits };
  }
  const mult = unitMultiplier(m[2], ctx.kbBase ?? 1024);
  if (mult === undefined) throw invalidValue(field, `'${text}' has an unknown unit '${m[2]}'`, SIZE_ACCEPTED);
  return { bytes: safeWhole(digits * mult, field, SIZE_ACCEPTED) };
}

/** A size in bytes (`4k`, `1g`, `4096`, `4KiB`, `0x1000`). */
export function parseSize(text: string, ctx: UnitContext = {}): number {
  return (parseSizeText(text, ctx, false) as { bytes: number }).bytes;
}

export interface PercentRange {
  /** Smallest percentage accepted (fio: 1 for size and io_size, 0 for offsets). */
  minPercent: number;
}

/** A size or a percentage of the target (`size=50%`), 100% at most as fio. */
export function parseSizeOrPercent(text: string, ctx: UnitContext & Partial<PercentRange> = {}): SizeOrPercent {
  const value = parseSizeText(text, ctx, true);
  const minPercent = ctx.minPercent ?? 1;
  if ('percent' in value && (value.percent < minPercent || value.percent > 100)) {
    throw invalidValue(ctx.field ?? 'value', `percentage ${value.percent}% is out of range`,
      `a size, or a whole percentage from ${minPercent}% to 100%`);
  }
  return value;
}

export interface IntegerRange {
  min?: number;
  max?: number;
}

/**
 * fio's integer options (FIO_OPT_INT): parsed like sizes, so `iodepth=1k` is 1024 as in fio;
 * a percentage is refused.
 */
export function parseInteger(text: string, ctx: UnitContext & IntegerRange = {}): number {
  const field = ctx.field ?? 'value';
  const min = ctx.min ?? 0;
  const max = ctx.max ?? 0xffffffff;
  const accepted = `a whole number from ${min} to ${max} (unit suffixes such as k are allowed, as in fio)`;
  let value: number;
  try {
    value = parseSize(text, ctx);
  } catch (err) {
    if (err instanceof VolbenchError && err.code === 'EUNSUPPORTED_OPTION') throw err;
    throw invalidValue(field, `'${text}' is not a whole number`, accepted);
  }
  if (value < min || value > max) throw invalidValue(field, `${value} is out of range`, accepted);
  return value;
}

/** The unit a bare number means: seconds for runtime/ramp_time/startdelay, µs for thinktime. */
export type TimeUnit = 's' | 'us';

/** Microseconds per unit, as parse.c's get_mult_time. */
const TIME_UNITS_US: Record<string, number> = {
  us: 1, usec: 1, ms: 1_000, msec: 1_000, s: 1_000_000, m: 60_000_000, h: 3_600_000_000, d: 86_400_000_000,
};

/**
 * A duration in nanoseconds: `60s`, `2m`, `500ms`, `10us`, `1h`, `1d`, or a bare number in the
 * option's default unit. fio reads any other suffix (`sec`, `min`) as microseconds without a
 * word, so volbench refuses them instead.
 */
export function parseTimeNs(text: string, ctx: UnitContext & { defaultUnit: TimeUnit }): number {
  const field = ctx.field ?? 'value';
  const bareMeans = ctx.defaultUnit === 's' ? 'seconds' : 'microseconds';
  const accepted = `a whole number with an optional unit: d, h, m, s, ms (msec), us (usec); a bare number is in ${bareMeans}`;
  const m = /^(\d+)([a-z]*)$/i.exec(text.trim());
  if (!m) {
    const hint = /^\d+\.\d/.test(text.trim()) ? ' (fio reads only whole numbers; use a smaller unit)' : '';
    throw invalidValue(field, `'${text}' is not a duration${hint}`, accepted);
  }
  const unit = m[2] === '' ? ctx.defaultUnit : m[2].toLowerCase();
  const usPerUnit = ownValue(TIME_UNITS_US, unit);
  if (usPerUnit === undefined) {
    throw invalidValue(field, `'${text}' has an unknown time unit '${m[2]}' (fio would read it as microseconds)`, accepted);
  }
  return safeWhole(Number(m[1]) * usPerUnit * 1000, field, accepted);
}

export const BOOL_ACCEPTED = '1 or 0 (true or false in JSON)';

/**
 * fio's booleans are integers limited to 0 and 1 (parse.c check_int); `true`/`yes`/`on` are
 * refused by fio and by volbench. Hex `0x1` is accepted as fio does.
 */
export function parseBool(text: string, ctx: UnitContext = {}): boolean {
  const t = text.trim();
  if (/^(0x)?0*1$/i.test(t)) return true;
  if (/^(0x)?0+$/i.test(t)) return false;
  throw invalidValue(ctx.field ?? 'value', `'${text}' is not a boolean`, BOOL_ACCEPTED);
}

const U64_MAX = (1n << 64n) - 1n;

/** Digits of 2^64-1: 20 in decimal, 16 in hex. */
const U64_DIGITS = { decimal: 20, hex: 16 };

/**
 * randseed: a 64-bit unsigned integer, decimal or hex, kept exact as a bigint. A number with more
 * digits than 2^64-1 (leading zeros aside) is refused before BigInt reads it: BigInt's decimal
 * conversion is super-linear, and 32,000 digits took 35 times as long as 4,000.
 */
export function parseRandseed(text: string, ctx: UnitContext = {}): bigint {
  const accepted = 'a whole number from 0 to 2^64-1, decimal or hex (0x...)';
  const t = text.trim();
  const m = /^(0x)?([0-9a-f]+)$/i.exec(t);
  if (!m || (m[1] === undefined && !/^\d+$/.test(m[2]))) {
    throw invalidValue(ctx.field ?? 'value', `'${text}' is not a seed`, accepted);
  }
  const digits = m[2].replace(/^0+(?=.)/, '');
  const tooLong = () => invalidValue(ctx.field ?? 'value', `${t.length > 60 ? `${t.slice(0, 60)}…` : t} does not fit in 64 bits`, accepted);
  if (digits.length > (m[1] === undefined ? U64_DIGITS.decimal : U64_DIGITS.hex)) throw tooLong();
  const seed = BigInt(m[1] === undefined ? digits : `0x${digits}`);
  if (seed > U64_MAX) throw tooLong();
  return seed;
}

/** A decimal number as fio's float options take (`99.9`, `1.2`, `1e2`), finite. */
export function parseDecimal(text: string, ctx: UnitContext & { accepted: string }): number {
  const t = text.trim();
  // `\d+(\.\d*)?` rather than `\d+\.?\d*`, whose two digit runs backtrack quadratically.
  const ok = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(t);
  const value = Number(t);
  if (!ok || !Number.isFinite(value)) {
    throw invalidValue(ctx.field ?? 'value', `'${text}' is not a number`, ctx.accepted);
  }
  return value;
}
