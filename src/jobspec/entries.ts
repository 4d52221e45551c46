/**
 * One section of the JSON form (`global` or a job) read as a list of known options: names
 * resolved to their rows (aliases included), repeats folded (last value wins, first place kept),
 * and each value's text and echo as fio would have them.
 */
import type { RawOptionValue } from './types.js';
import { invalidValue } from './fail.js';
import type { OptionContext, OptionDef } from './option-def.js';
import { requireOption } from './option-lookup.js';

export interface Entry {
  def: OptionDef;
  /** The value as written in the spec. */
  raw: RawOptionValue;
  /** Spec path with the name as written: `jobs[0].blocksize`. */
  field: string;
}

/** Options of one section in order; `blockalign` and `ba` (one option) count once. */
export function readEntries(record: Record<string, RawOptionValue>, scope: string): Entry[] {
  const byName = new Map<string, Entry>();
  for (const [key, raw] of Object.entries(record)) {
    const def = requireOption(key, scope);
    const entry = { def, raw, field: `${scope}.${key}` };
    const seen = byName.get(def.name);
    if (seen) Object.assign(seen, entry);
    else byName.set(def.name, entry);
  }
  return [...byName.values()];
}

/**
 * The longest value an option takes: PATH_MAX, for a filename or directory. Other values are
 * a few characters; the bound keeps every value parser's work small whatever it is given.
 */
export const MAX_VALUE_LENGTH = 4096;

/** The text a parser reads; undefined for an option given without a value (a bare flag). */
export function valueText(entry: Entry): string | undefined {
  const { raw, def, field } = entry;
  if (typeof raw === 'string') {
    if (raw.length <= MAX_VALUE_LENGTH) return raw;
    throw invalidValue(field, `the value is ${raw.length} characters long, more than ${MAX_VALUE_LENGTH}`,
      `${def.accepted}, at most ${MAX_VALUE_LENGTH} characters`);
  }
  if (typeof raw === 'number') return String(raw);
  if (raw && def.bare) return undefined;
  if (def.boolean) return raw ? '1' : '0';
  const why = raw ? `${def.name} needs a value` : 'false is not accepted here';
  throw invalidValue(field, why, def.accepted);
}

/** The entry's parsed value: a bare option takes its row's bare value, others parse their text. */
export function entryValue(entry: Entry, ctx: OptionContext): unknown {
  const text = valueText(entry);
  const { def } = entry;
  return text === undefined && def.bare ? def.bare(ctx) : def.parse(text ?? '', ctx);
}

/**
 * fio's echo of an option ("job options"/"global options"): its canonical name and its value as
 * written. Options given without a value print nothing in fio's JSON, so they are left out, as
 * are volbench's own options.
 */
export function echoEntries(entries: Entry[], skip: (entry: Entry) => boolean = () => false): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const entry of entries) {
    const { def, raw } = entry;
    if (!def.echo || skip(entry) || (raw === true && def.bare)) continue;
    out.push([def.name, typeof raw === 'boolean' ? (raw ? '1' : '0') : String(raw)]);
  }
  return out;
}
