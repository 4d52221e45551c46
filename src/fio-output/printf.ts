/**
 * The few printf conversions fio's output uses, reproduced exactly: fio prints with glibc, whose
 * `%.*f` rounds the exact binary value of a double half-to-even. `Number#toFixed` rounds ties
 * away from zero, so `0.0078125.toFixed(6)` gives "0.007813" where fio prints "0.007812".
 */
import { decompose } from './exact.js';

/** `printf("%.<digits>f", x)` as glibc prints it. */
export function formatFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x < 0 || Object.is(x, -0)) return '-' + formatFixed(-x, digits);
  const { mantissa, exponent } = decompose(x);
  let scaled: bigint;
  if (exponent >= 0) {
    scaled = (mantissa << BigInt(exponent)) * 10n ** BigInt(digits);
  } else {
    const numerator = mantissa * 10n ** BigInt(digits);
    const denominator = 1n << BigInt(-exponent);
    scaled = numerator / denominator;
    const twiceRest = (numerator % denominator) * 2n;
    if (twiceRest > denominator || (twiceRest === denominator && scaled % 2n === 1n)) scaled += 1n;
  }
  if (digits === 0) return scaled.toString();
  const text = scaled.toString().padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** `%<width>.<digits>f`: right-aligned in at least `width` characters. */
export function fixedWidth(x: number, digits: number, width: number): string {
  return formatFixed(x, digits).padStart(width, ' ');
}

/** `%lld` / `%llu` of an integral value, never in exponent notation. */
export function formatInteger(x: number | bigint): string {
  if (typeof x === 'bigint') return x.toString();
  if (!Number.isFinite(x)) return '0';
  return BigInt(Math.trunc(x)).toString();
}

/** `%<width>llu`. */
export function integerWidth(x: number | bigint, width: number): string {
  return formatInteger(x).padStart(width, ' ');
}

/** `floor(a * b / c)` on integers, exact past 2^53 (fio does this arithmetic in 64 bits). */
export function mulDiv(a: number, b: number, c: number): number {
  if (c === 0) return 0;
  return Number((BigInt(Math.trunc(a)) * BigInt(Math.trunc(b))) / BigInt(Math.trunc(c)));
}
