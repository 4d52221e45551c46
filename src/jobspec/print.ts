/**
 * printJobFile: a parsed spec back into a fio job file, the form a storage engineer reads and
 * fio runs. Each job's parsed options are written under fio's canonical option names, in values
 * both fio and parseJobFile read back to the same options: sizes in bytes with the largest unit
 * that divides them, times in the largest of s, ms, us that does, per-direction values in full.
 * Options every job shares go to one [global] section; the rest to each job's own section;
 * options at their defaults are left out.
 *
 * It writes what the options mean, not how they were spelt: `blocksize=4096` comes back as
 * `bs=4k`, `rwmixwrite=30` as `rwmixread=70`. A value a job file has no way to hold (a ';' or
 * '#' in a description, a line break in a file name, a `${VAR}` that fio would expand) is
 * refused with an EINVALID_VALUE naming it, never written as something else.
 */
import { VolbenchError } from '../errors.js';
import type { BsSplitEntry, FileServiceType, JobOptions, PerDirection, RandomDistribution, SizeOrPercent, SteadyStateCriterion } from './types.js';
import { formatCpuList } from './cpu-list.js';
import { defaultOptions } from './defaults.js';
import type { OptionField } from './option-def.js';
import { SUPPORTED_OPTIONS } from './options.js';
import type { KbBase } from './units.js';

/** Where a value is written: the section's kb_base (what `k` means) and its spec path, for errors. */
interface PrintContext {
  kbBase: KbBase;
  field: string;
}

/** An option's line: `name=text`, or the name alone (a flag set). */
type LineValue = string | true;

type Render<K extends OptionField> = (value: NonNullable<JobOptions[K]>, ctx: PrintContext) => LineValue;

const WRITABLE_ACCEPTED = "text a job file can hold: no ';', '#' or line break, no '${NAME}' or $pagesize, " +
  '$mb_memory, $ncpus (fio expands them), no blanks at either end';

const KEYWORDS = ['$pagesize', '$mb_memory', '$ncpus'];

/**
 * The job-file reader cuts a line at ';' and '#', trims it, expands `${NAME}` (a `${` with a `}`
 * after it) and fio's $ keywords: a value holding any of these would read back as another.
 */
function writable(text: string, field: string): string {
  const open = text.indexOf('${');
  const expands = open >= 0 && text.indexOf('}', open + 2) >= 0;
  if (/[\n\r;#]/.test(text) || text !== text.trim() || expands || KEYWORDS.some((k) => text.includes(k))) {
    throw new VolbenchError('EINVALID_VALUE', `${field}: '${shortened(text)}' cannot be written in a job file`,
      { field, accepted: WRITABLE_ACCEPTED });
  }
  return text;
}

function shortened(text: string): string {
  const oneLine = JSON.stringify(text).slice(1, -1);
  return oneLine.length <= 60 ? oneLine : `${oneLine.slice(0, 60)}…`;
}

const UNIT_LETTERS = ['p', 't', 'g', 'm', 'k'] as const;
const UNIT_POWER = { k: 1, m: 2, g: 3, t: 4, p: 5 } as const;

/** Bytes with the largest of fio's unit letters that divides them (powers of the section's kb_base). */
export function sizeText(bytes: number, kbBase: KbBase = 1024): string {
  if (bytes > 0) {
    for (const letter of UNIT_LETTERS) {
      const unit = kbBase ** UNIT_POWER[letter];
      if (bytes % unit === 0) return `${bytes / unit}${letter}`;
    }
  }
  return String(bytes);
}

/**
 * A time in the largest of s, ms, us that holds it whole. fio counts time in microseconds, so a
 * time that is not a whole number of them cannot be written.
 */
export function timeText(ns: number, field = 'value'): string {
  if (ns % 1e9 === 0) return `${ns / 1e9}s`;
  if (ns % 1e6 === 0) return `${ns / 1e6}ms`;
  if (ns % 1e3 === 0) return `${ns / 1e3}us`;
  throw new VolbenchError('EINVALID_VALUE', `${field}: ${ns} ns is not a whole number of microseconds, fio's unit of time`,
    { field, accepted: 'a time in whole microseconds' });
}

function sizeOrPercentText(value: SizeOrPercent, ctx: PrintContext): string {
  return 'percent' in value ? `${value.percent}%` : sizeText(value.bytes, ctx.kbBase);
}

/**
 * read,write,trim in full, or one value when all three agree. A slot left empty keeps the value
 * before the option (the default, since each option is written in one section only): that is how
 * a direction at 0 is written for `ba`, which takes no 0.
 */
function perDirectionText(slots: PerDirection<string>): string {
  return slots[0] === slots[1] && slots[1] === slots[2] ? slots[0] : slots.join(',');
}

function bssplitText(split: PerDirection<BsSplitEntry[]>, ctx: PrintContext): string {
  const list = (entries: BsSplitEntry[]) => entries.map((e) => `${sizeText(e.bs, ctx.kbBase)}/${e.pct}`).join(':');
  return perDirectionText(split.map(list) as PerDirection<string>);
}

/** `filename` and `directory`: fio separates names with ':', so a ':' inside one is `\:`. */
function pathText(paths: string[], ctx: PrintContext): string {
  return paths.map((path) => writable(path, ctx.field).replaceAll(':', '\\:')).join(':');
}

function fileServiceText(f: FileServiceType): string {
  return f.nr === 1 ? f.kind : `${f.kind}:${f.nr}`;
}

function steadyStateText(c: SteadyStateCriterion): string {
  return `${c.metric}${c.slope ? '_slope' : ''}:${c.limit}${c.percent ? '%' : ''}`;
}

function distributionText(d: RandomDistribution): string {
  switch (d.kind) {
    case 'random':
      return 'random';
    case 'zipf':
      return `zipf:${d.theta}`;
    case 'pareto':
      return `pareto:${d.h}`;
    case 'normal':
      return `normal:${d.sigmaPct}`;
    case 'zoned':
      return `zoned:${d.zones[0].map((z) => `${z.access}/${z.size}`).join(':')}`;
  }
}

const text = (v: string | number) => String(v);
const bool = (v: boolean): LineValue => (v ? '1' : '0');
/** A flag: its name alone when set (fio's FIO_OPT_STR_SET), `=0` when it is unset on purpose. */
const flag = (v: boolean): LineValue => (v ? true : '0');
const str = (v: string, ctx: PrintContext) => writable(v, ctx.field);
const size = (v: number, ctx: PrintContext) => sizeText(v, ctx.kbBase);
const sizeOrPercent = (v: SizeOrPercent, ctx: PrintContext) => sizeOrPercentText(v, ctx);
const time = (v: number, ctx: PrintContext) => timeText(v, ctx.field);
const sizes = (v: PerDirection<number>, ctx: PrintContext) =>
  perDirectionText(v.map((b) => (b === 0 ? '' : sizeText(b, ctx.kbBase))) as PerDirection<string>);
const counts = (v: PerDirection<number>) => perDirectionText(v.map(String) as PerDirection<string>);

/** How each JobOptions field is written; the type makes sure no field is forgotten. */
const RENDER: { [K in OptionField]: Render<K> } = {
  name: str,
  description: str,
  filename: pathText,
  directory: pathText,
  nrfiles: text,
  file_service_type: fileServiceText,
  size: sizeOrPercent,
  filesize: size,
  offset: sizeOrPercent,
  offset_increment: sizeOrPercent,
  io_size: sizeOrPercent,
  rw: text,
  rwmixread: text,
  bs: sizes,
  bssplit: bssplitText,
  bsrange: (v, ctx) => perDirectionText(v.map(([a, b]) => `${sizeText(a, ctx.kbBase)}-${sizeText(b, ctx.kbBase)}`) as PerDirection<string>),
  blockalign: sizes,
  iodepth: text,
  iodepth_batch_submit: text,
  iodepth_batch_complete_min: text,
  iodepth_batch_complete_max: text,
  numjobs: text,
  group_reporting: flag,
  stonewall: flag,
  new_group: flag,
  runtime_ns: time,
  time_based: flag,
  ramp_time_ns: time,
  startdelay_ns: time,
  steadystate: steadyStateText,
  steadystate_duration_ns: time,
  steadystate_ramp_time_ns: time,
  loops: text,
  direct: bool,
  // fio 3.33 reads sync as 0/1 or dsync; 'sync' and 'none' are volbench's words for 1 and 0.
  sync: (v) => ({ none: '0', sync: '1', dsync: 'dsync' })[v],
  fsync: text,
  fdatasync: text,
  end_fsync: bool,
  invalidate: bool,
  randrepeat: bool,
  randseed: (v) => v.toString(),
  norandommap: flag,
  random_distribution: distributionText,
  rate: sizes,
  rate_iops: counts,
  rate_process: text,
  latency_target_ns: time,
  latency_window_ns: time,
  latency_percentile: text,
  percentage_random: counts,
  thinktime_ns: time,
  thinktime_blocks: text,
  refill_buffers: flag,
  scramble_buffers: bool,
  zero_buffers: flag,
  buffer_compress_percentage: text,
  buffer_compress_chunk: text,
  // fio 3.33 spells "no verification" 0 only.
  verify: (v) => (v === 'none' ? '0' : v),
  do_verify: bool,
  verify_only: flag,
  percentile_list: (v) => v.join(':'),
  clat_percentiles: bool,
  lat_percentiles: bool,
  slat_percentiles: bool,
  unified_rw_reporting: text,
  write_bw_log: str,
  write_iops_log: str,
  write_lat_log: str,
  log_avg_msec: text,
  log_offset: bool,
  bwavgtime: text,
  iopsavgtime: text,
  disable_lat: bool,
  disable_clat: bool,
  disable_slat: bool,
  kb_base: text,
  unlink: bool,
  ioengine: text,
  fixedbufs: flag,
  registerfiles: flag,
  sqthread_poll: flag,
  hipri: flag,
  cpus_allowed: (v) => formatCpuList(v),
  cpus_allowed_policy: text,
  fallocate: text,
  fadvise_hint: (v) => ({ none: '0', pattern: '1', random: 'random', sequential: 'sequential' })[v],
  allow_block_write: flag,
};

/** Each field once, under the first (canonical) option that fills it, in the table's order. */
const FIELD_OPTIONS: Array<[field: OptionField, name: string]> = (() => {
  const seen = new Map<OptionField, string>();
  for (const def of SUPPORTED_OPTIONS) if (!seen.has(def.field)) seen.set(def.field, def.name);
  return [...seen.entries()];
})();

/** A value's identity, to tell a default or a value every job shares (bigints included). */
function key(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

const DEFAULT_KEYS = new Map(Object.entries(defaultOptions()).map(([field, value]) => [field, key(value)]));

/** The fields a job sets away from their defaults, with each value's identity. */
function setFields(options: JobOptions): Map<OptionField, string> {
  const out = new Map<OptionField, string>();
  for (const [field] of FIELD_OPTIONS) {
    const value = options[field];
    if (value === undefined || field === 'name') continue;
    const k = key(value);
    if (DEFAULT_KEYS.get(field) !== k) out.set(field, k);
  }
  return out;
}

function lines(options: JobOptions, fields: ReadonlySet<OptionField>, kbBase: KbBase, scope: string): string[] {
  const out: string[] = [];
  for (const [field, name] of FIELD_OPTIONS) {
    if (!fields.has(field)) continue;
    const render = RENDER[field] as Render<OptionField>;
    const value = render(options[field] as NonNullable<JobOptions[OptionField]>, { kbBase, field: `${scope}.${name}` });
    out.push(value === true ? name : `${name}=${value}`);
  }
  return out;
}

/** fio reads a section name of up to 255 characters, and one starting "global" as [global]. */
const MAX_HEADER = 255;

/** `[name]`, or for a name a header cannot hold, a neutral header and a `name=` line. */
function header(name: string, index: number): string[] {
  const plain = name.length <= MAX_HEADER && !name.startsWith('global') && !/[[\]$]/.test(name);
  if (plain) {
    try {
      return [`[${writable(name, `jobs[${index}].name`)}]`];
    } catch {
      // Written as name= below, which refuses it with the same error if it cannot be written at all.
    }
  }
  return [`[job${index + 1}]`, `name=${writable(name, `jobs[${index}].name`)}`];
}

/** What printJobFile reads: a parsed spec, or anything with each job's parsed options. */
export interface PrintableSpec {
  jobs: ReadonlyArray<{ options: JobOptions }>;
}

/**
 * The spec as a fio job file: a [global] section with the options every job sets alike (left
 * out when there are none), then one section per job in order, each ending in a blank line.
 * parseSpec(parseJobFile(printJobFile(s))) gives each job the options it has in `s`.
 */
export function printJobFile(spec: PrintableSpec): string {
  const jobs = spec.jobs.map((job) => ({ options: job.options, set: setFields(job.options) }));
  const [first, ...rest] = jobs;
  const shared = new Set<OptionField>();
  // One job keeps its options in its own section: a [global] would only split them.
  for (const [field, k] of rest.length > 0 ? first.set : []) {
    if (rest.every((job) => job.set.get(field) === k)) shared.add(field);
  }
  const sections: string[][] = [];
  if (shared.size > 0) {
    // The [global] section reads its sizes with its own kb_base: the jobs' when they share it.
    // Its values are every job's: errors name the first job's.
    const kbBase = shared.has('kb_base') ? first.options.kb_base : 1024;
    sections.push(['[global]', ...lines(first.options, shared, kbBase, 'jobs[0]')]);
  }
  jobs.forEach(({ options, set }, i) => {
    const own = new Set([...set.keys()].filter((field) => !shared.has(field)));
    sections.push([...header(options.name, i), ...lines(options, own, options.kb_base, `jobs[${i}]`)]);
  });
  return sections.map((section) => `${section.join('\n')}\n`).join('\n');
}
