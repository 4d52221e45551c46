/**
 * The shape of one row of the supported-options table, and constructors for the kinds of
 * options fio has (flags, booleans, integers, sizes, times, words, strings).
 */
import type { JobOptions } from './types.js';
import { choiceAccepted, parseChoice, type Choice } from './choices.js';
import { invalidValue } from './fail.js';
import {
  BOOL_ACCEPTED, parseBool, parseInteger, parseSize, parseSizeOrPercent, parseTimeNs, SIZE_ACCEPTED,
  type IntegerRange, type KbBase, type TimeUnit,
} from './units.js';

export type OptionField = keyof JobOptions;

/** What a parser knows about where its value sits. */
export interface OptionContext<K extends OptionField = OptionField> {
  /** Spec path of the value, as written: `jobs[0].blocksize`. */
  field: string;
  /** kb_base of the section the value was written in. */
  kbBase: KbBase;
  /** The job's name (a bare `write_bw_log` logs under it, as fio). */
  jobName: string;
  /** The field's value before this option: the default, or what [global] set. */
  previous: JobOptions[K] | undefined;
}

export interface OptionDef<K extends OptionField = OptionField> {
  /** fio's canonical name (options.c `.name`): the one fio echoes in "job options". */
  name: string;
  /** Other names fio accepts for it (options.c `.alias`). */
  aliases: readonly string[];
  /** The JobOptions field it fills. */
  field: K;
  /** What a value looks like, in words: the `accepted` of its errors. */
  accepted: string;
  /** The field's value when no option sets it; absent leaves the field unset. */
  default?: JobOptions[K];
  /**
   * fio's FIO_OPT_STR_SET: given without a value it means 1 (`time_based`), and on fio's command
   * line its value is optional (`--time_based`, `--time_based=1`).
   */
  flag: boolean;
  /** fio's `.prio`: job-file sections apply (and echo) their options highest first. */
  prio: number;
  /** An ioengine option: fio parses these after all other options of a job-file section. */
  engine: boolean;
  /** Echoed in fio's "job options"; false for volbench's own options, which fio never prints. */
  echo: boolean;
  /** Takes 1/0, so JSON true/false stand for them. */
  boolean: boolean;
  /** The value when given without one; absent when a value is required. */
  bare?: (ctx: OptionContext<K>) => JobOptions[K];
  parse: (text: string, ctx: OptionContext<K>) => JobOptions[K];
}

/** Everything a constructor leaves to the row. */
export type RowExtras<K extends OptionField> = Partial<Pick<OptionDef<K>, 'aliases' | 'default' | 'prio' | 'engine' | 'echo'>>;

type Parsed<K extends OptionField> =
  Pick<OptionDef<K>, 'accepted' | 'parse'> & Partial<Pick<OptionDef<K>, 'flag' | 'bare' | 'boolean'>>;

/** Assemble a row. The cast widens the field type for the table, whose rows differ in it. */
export function option<K extends OptionField>(name: string, field: K, kind: Parsed<K>, extras: RowExtras<K> = {}): OptionDef {
  const row: OptionDef<K> = {
    name, field, aliases: [], flag: false, prio: 0, engine: false, echo: true, boolean: false, ...kind, ...extras,
  };
  return row as unknown as OptionDef;
}

/** The field's type; each row's parser returns it by construction. */
type Value<K extends OptionField> = JobOptions[K];

export const FLAG_ACCEPTED = 'no value (the option alone), or 1 or 0 (true or false in JSON)';

export function flagKind<K extends OptionField>(): Parsed<K> {
  return {
    accepted: FLAG_ACCEPTED,
    flag: true,
    boolean: true,
    bare: () => true as Value<K>,
    // fio takes any integer after a flag (nonzero sets it); volbench takes 1 and 0.
    parse: (text, ctx) => {
      try {
        return parseBool(text, ctx) as Value<K>;
      } catch {
        throw invalidValue(ctx.field, `'${text}' is not 1 or 0`, FLAG_ACCEPTED);
      }
    },
  };
}

export function boolKind<K extends OptionField>(negate = false): Parsed<K> {
  return { accepted: BOOL_ACCEPTED, boolean: true, parse: (text, ctx) => (parseBool(text, ctx) !== negate) as Value<K> };
}

export function intKind<K extends OptionField>(range: IntegerRange, map: (n: number) => number = (n) => n): Parsed<K> {
  const min = range.min ?? 0;
  const max = range.max ?? 0xffffffff;
  return {
    accepted: `a whole number from ${min} to ${max}`,
    parse: (text, ctx) => map(parseInteger(text, { ...ctx, min, max })) as Value<K>,
  };
}

export function sizeKind<K extends OptionField>(min = 0): Parsed<K> {
  return {
    accepted: SIZE_ACCEPTED,
    parse: (text, ctx) => {
      const bytes = parseSize(text, ctx);
      if (bytes < min) throw invalidValue(ctx.field, `${bytes} is below the minimum of ${min}`, SIZE_ACCEPTED);
      return bytes as Value<K>;
    },
  };
}

export function sizeOrPercentKind<K extends OptionField>(minPercent: number): Parsed<K> {
  return {
    accepted: `${SIZE_ACCEPTED}; or a whole percentage of the target from ${minPercent}% to 100%`,
    parse: (text, ctx) => parseSizeOrPercent(text, { ...ctx, minPercent }) as Value<K>,
  };
}

/** A time option; the field holds nanoseconds. */
export function timeKind<K extends OptionField>(defaultUnit: TimeUnit): Parsed<K> {
  return {
    accepted: `a duration such as 30s, 2m, 500ms, 10us (a bare number is in ${defaultUnit === 's' ? 'seconds' : 'microseconds'})`,
    parse: (text, ctx) => parseTimeNs(text, { ...ctx, defaultUnit }) as Value<K>,
  };
}

export function choiceKind<K extends OptionField>(option: string, choice: Choice<Value<K>>): Parsed<K> {
  return { accepted: choiceAccepted(choice), parse: (text, ctx) => parseChoice(text, choice, { field: ctx.field, option }) };
}

export const STRING_ACCEPTED = 'a non-empty string';

export function stringKind<K extends OptionField>(check: (text: string, field: string) => string = (t) => t): Parsed<K> {
  return {
    accepted: STRING_ACCEPTED,
    parse: (text, ctx) => {
      // fio's FIO_OPT_STR_STORE refuses an empty string.
      if (text === '') throw invalidValue(ctx.field, 'the value is empty', STRING_ACCEPTED);
      return check(text, ctx.field) as Value<K>;
    },
  };
}
