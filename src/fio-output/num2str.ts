/**
 * fio's num2str (lib/num2str.c): a quantity shortened to `maxlen` digits with a unit prefix,
 * dividing by 1000 or 1024 until it fits and keeping as many decimals as the room left allows
 * ("23.4k", "1278MiB/s", "3762.4k"). Its quirks are kept, since fio's normal output shows them:
 * with maxlen 0 every number prints as "0" (fio's unified_rw_reporting=both "mixed" line).
 */
import { formatFixed } from './printf.js';

export type N2sUnit = 'none' | 'persec' | 'byte' | 'bit' | 'bytepersec' | 'bitpersec';

const UNIT_TEXT: Record<N2sUnit, string> = {
  none: '', persec: '/s', byte: 'B', bit: 'bit', bytepersec: 'B/s', bitpersec: 'bit/s',
};
const SI = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
const IEC = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

export function num2str(value: number, maxlen: number, base: number, pow2: boolean, unit: N2sUnit): string {
  const thousand = pow2 ? 1024n : 1000n;
  const prefixes = pow2 ? IEC : SI;
  let num = BigInt(Math.max(0, Math.trunc(value)));
  if (unit === 'bit' || unit === 'bitpersec') num *= 8n;
  let post = 0;
  for (let b = base; b > 1; post++) b = Math.floor(b / Number(thousand));
  let modulo: bigint | undefined;
  let carry = false;
  while (post < SI.length && num.toString().length > maxlen) {
    modulo = num % thousand;
    num /= thousand;
    carry = modulo >= thousand / 2n;
    post++;
  }
  if (post >= SI.length) post = 0;
  const done = (n: bigint): string => `${n}${prefixes[post]}${UNIT_TEXT[unit]}`;
  if (modulo === undefined) return done(num);
  const room = maxlen - num.toString().length;
  if (room <= 1) return done(carry ? num + 1n : num);
  const fraction = formatFixed(Number(modulo) / Number(thousand), room - 1);
  if (fraction[0] === '1') num += 1n;
  return `${num}.${fraction.slice(2)}${prefixes[post]}${UNIT_TEXT[unit]}`;
}
