/**
 * Options with one value per data direction (read, write, trim): `bs=4k,64k`, `rate=1m,500k`,
 * `blockalign`, `rate_iops`, and fio's `bssplit` lists.
 */
import type { BsSplitEntry, PerDirection } from './types.js';
import { invalidValue } from './fail.js';
import { parseSize, type UnitContext } from './units.js';

/**
 * fio's rule (parse.c handle_option, HOWTO `blocksize`): one value applies to all three
 * directions; with commas, values go to read, write, trim in turn, and a value not followed by a
 * comma also fills the directions after it. An empty slot keeps the value the option had before
 * (the default, or the [global] value). `bs=,8k` is [keep, 8k, 8k]; `bs=8k,32k,` is [8k, 32k, keep].
 * Returns the text of each slot, undefined for "keep".
 */
export function splitDirections(text: string, field: string, accepted: string): PerDirection<string | undefined> {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length > 3) throw invalidValue(field, `'${text}' has more than three comma-separated values`, accepted);
  if (parts.every((p) => p === '')) throw invalidValue(field, `'${text}' gives no value`, accepted);
  const slots: Array<string | undefined> = parts.map((p) => (p === '' ? undefined : p));
  const last = parts[parts.length - 1];
  while (slots.length < 3) slots.push(last === '' ? undefined : last);
  return slots as PerDirection<string | undefined>;
}

export const perDirectionAccepted = (one: string): string =>
  `${one}, or up to three comma-separated values for read,write,trim (a value without a ` +
  'trailing comma also applies to the directions after it; an empty one keeps the default)';

/** A per-direction option whose values each parse with `parseOne`. */
export function parsePerDirection<T>(
  text: string,
  previous: PerDirection<T>,
  parseOne: (part: string) => T,
  ctx: { field: string; accepted: string },
): PerDirection<T> {
  // fio also splits on ':' and '-' when there is no comma, so `bs=4k:8k` silently means read 4k,
  // write 8k. That reads like a range (fio's bsrange), so volbench asks for commas instead.
  if (!text.includes(',') && /^[^:]+[:-]/.test(text.trim())) {
    const why = `'${text}': separate read,write,trim values with commas (ranges are not supported)`;
    throw invalidValue(ctx.field, why, ctx.accepted);
  }
  const slots = splitDirections(text, ctx.field, ctx.accepted);
  return slots.map((slot, i) => (slot === undefined ? previous[i] : parseOne(slot))) as PerDirection<T>;
}

export const BSSPLIT_ACCEPTED =
  'blocksize/percentage entries separated by colons (4k/50:64k/30:1m/20); an entry without a ' +
  'percentage shares what is left equally; percentages are whole numbers adding up to at most ' +
  '100; up to three comma-separated lists for read,write,trim';

/** The largest block size (options.ts MAX_BLOCK_SIZE: a 32-bit length). */
const MAX_SPLIT_BLOCK = 2 ** 32 - 1;

/** fio's BSSPLIT_MAX: entries per direction. */
const BSSPLIT_MAX = 64;

interface RawSplitEntry {
  bs: number;
  /** undefined: no percentage given (fio also treats `/0` so). */
  pct: number | undefined;
}

function parseSplitEntry(entry: string, ctx: UnitContext & { field: string }): RawSplitEntry {
  const [bsText, pctText, extra] = entry.split('/');
  if (extra !== undefined) throw invalidValue(ctx.field, `'${entry}' has more than one '/'`, BSSPLIT_ACCEPTED);
  const bs = parseSize(bsText, ctx);
  if (bs < 1) throw invalidValue(ctx.field, `block size in '${entry}' must be at least 1`, BSSPLIT_ACCEPTED);
  if (bs > MAX_SPLIT_BLOCK) throw invalidValue(ctx.field, `block size in '${entry}' is above the maximum of ${MAX_SPLIT_BLOCK} bytes`, BSSPLIT_ACCEPTED);
  if (pctText === undefined || pctText.trim() === '') return { bs, pct: undefined };
  if (!/^\d+$/.test(pctText.trim())) {
    throw invalidValue(ctx.field, `percentage in '${entry}' is not a whole number`, BSSPLIT_ACCEPTED);
  }
  const pct = Number(pctText.trim());
  if (pct > 100) throw invalidValue(ctx.field, `percentage in '${entry}' is above 100`, BSSPLIT_ACCEPTED);
  // options.c split_parse_ddir: a zero percentage counts as "not given".
  return { bs, pct: pct === 0 ? undefined : pct };
}

/**
 * Shares as fio's bssplit_ddir computes them: entries without a percentage get
 * (100 - given) / missing, rounded down. What rounding leaves over (or what the given
 * percentages leave when none is missing) goes to the entry with the largest share, the last
 * one after fio's sort by percentage: fio's picker falls through to that entry for the rest of
 * its random range. So the shares always add up to 100.
 */
function completeShares(raw: RawSplitEntry[], field: string): BsSplitEntry[] {
  const given = raw.reduce((sum, e) => sum + (e.pct ?? 0), 0);
  const missing = raw.filter((e) => e.pct === undefined).length;
  if (given > 100) throw invalidValue(field, `percentages add up to ${given}, more than 100`, BSSPLIT_ACCEPTED);
  const share = missing ? Math.floor((100 - given) / missing) : 0;
  const out = raw.map((e) => ({ bs: e.bs, pct: e.pct ?? share }));
  const total = out.reduce((sum, e) => sum + e.pct, 0);
  let largest = 0;
  out.forEach((e, i) => { if (e.pct >= out[largest].pct) largest = i; });
  out[largest].pct += 100 - total;
  return out;
}

function parseSplitList(list: string, ctx: UnitContext & { field: string }): BsSplitEntry[] {
  const entries = list.split(':');
  // A trailing colon ends the list, as in fio; an empty entry elsewhere would make fio drop the rest.
  if (entries.length > 1 && entries[entries.length - 1].trim() === '') entries.pop();
  if (entries.some((e) => e.trim() === '')) throw invalidValue(ctx.field, `'${list}' has an empty entry`, BSSPLIT_ACCEPTED);
  if (entries.length > BSSPLIT_MAX) {
    throw invalidValue(ctx.field, `'${list}' has more than ${BSSPLIT_MAX} entries`, BSSPLIT_ACCEPTED);
  }
  return completeShares(entries.map((e) => parseSplitEntry(e.trim(), ctx)), ctx.field);
}

/**
 * `bssplit=4k/50:64k/30:1m/20`, or per direction with commas (options.c str_split_parse):
 * `a` is a for all three, `a,b` is read a and write and trim b, `a,b,c` one each. An empty list
 * leaves that direction as it was (no split: it uses `bs`).
 */
export function parseBsSplit(
  text: string,
  previous: PerDirection<BsSplitEntry[]> | undefined,
  ctx: UnitContext & { field: string },
): PerDirection<BsSplitEntry[]> {
  const lists = text.split(',');
  if (lists.length > 3) throw invalidValue(ctx.field, `'${text}' has more than three comma-separated lists`, BSSPLIT_ACCEPTED);
  const slots = lists.length === 1 ? [lists[0], lists[0], lists[0]] : [lists[0], lists[1], lists[2] ?? lists[1]];
  if (slots.every((s) => s.trim() === '')) throw invalidValue(ctx.field, `'${text}' gives no block sizes`, BSSPLIT_ACCEPTED);
  return slots.map((slot, i) =>
    slot.trim() === '' ? (previous?.[i] ?? []) : parseSplitList(slot, ctx)) as PerDirection<BsSplitEntry[]>;
}

export const BSRANGE_ACCEPTED = perDirectionAccepted('a block size range MIN-MAX (or MIN:MAX), such as 4k-64k');

/**
 * `bsrange=4k-64k`, per direction as `bs` (fio's FIO_OPT_RANGE: `-` or `:` between the two
 * sizes, the smaller first whichever way they are written). Each I/O then draws its size from
 * the range, as fio draws it (native/block_sizes.h).
 */
export function parseBsRange(
  text: string,
  previous: PerDirection<[number, number]> | undefined,
  ctx: UnitContext & { field: string },
): PerDirection<[number, number]> {
  const slots = splitDirections(text, ctx.field, BSRANGE_ACCEPTED);
  return slots.map((slot, d) => {
    if (slot === undefined) {
      if (previous) return previous[d];
      throw invalidValue(ctx.field, `'${text}' leaves a direction without a range`, BSRANGE_ACCEPTED);
    }
    const at = slot.search(/[-:]/);
    if (at <= 0) throw invalidValue(ctx.field, `'${slot}' is not a range MIN-MAX`, BSRANGE_ACCEPTED);
    const [a, b] = [slot.slice(0, at), slot.slice(at + 1)].map((part) => {
      let bytes: number;
      try {
        bytes = parseSize(part, ctx);
      } catch {
        throw invalidValue(ctx.field, `'${part}' in '${slot}' is not a size`, BSRANGE_ACCEPTED);
      }
      if (bytes < 1 || bytes > MAX_SPLIT_BLOCK) {
        throw invalidValue(ctx.field, `'${part}' is not a block size from 1 to ${MAX_SPLIT_BLOCK} bytes`, BSRANGE_ACCEPTED);
      }
      return bytes;
    });
    return a <= b ? [a, b] : [b, a];
  }) as PerDirection<[number, number]>;
}
