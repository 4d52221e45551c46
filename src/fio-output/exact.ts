/**
 * A double's exact value as a fraction of BigInts, for the few places where fio's output
 * depends on digits or comparisons that rounding in doubles would get wrong.
 */
const view = new DataView(new ArrayBuffer(8));

/** A finite double x ≥ 0 as `mantissa · 2^exponent`, both integers. */
export function decompose(x: number): { mantissa: bigint; exponent: number } {
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** x ≥ 0 as [numerator, denominator]. */
export function asFraction(x: number): [bigint, bigint] {
  const { mantissa, exponent } = decompose(x);
  return exponent >= 0 ? [mantissa << BigInt(exponent), 1n] : [mantissa, 1n << BigInt(-exponent)];
}
