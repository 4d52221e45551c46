/**
 * Running fio 3.33 and volbench on the same command line, and comparing what they print.
 *
 * Both tools get the same fio flags. fio writes its JSON with --output (its diagnostics stay out of
 * the document); volbench runs through the library and prints with formatJson, or through the CLI
 * (dist/, built by `npm run build`) where the working directory matters (relative log prefixes).
 * Documents are read with a small parser that keeps every number's literal text, so printing
 * (integers vs six decimals) is compared along with the structure.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { expect, it } from 'vitest';

import { formatJson, parseFioArgs, parseSpec, runParsed } from '../../src/index.js';

const run = promisify(execFile);
/** A parsed fio document: shapes are what the assertions check, so it stays untyped. */
export type Json = any;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

// ---------------------------------------------------------------------------------------------
// What a case needs (fio, an engine) is declared by its file: tests/helpers/requires.ts.

/** A describe title that carries the skip reason, so a skipped case says why. */
export function titled(title: string, reason: string | undefined): string {
  return reason ? `${title} [skipped: ${reason}]` : title;
}

// ---------------------------------------------------------------------------------------------
// Workspaces: a fresh directory per case, named with the pid; fio and volbench each get a
// subdirectory for what they write beside the target (outputs, logs).

export interface Workspace {
  dir: string;
  fioDir: string;
  volbenchDir: string;
  remove(): void;
}

/** `memory`: /dev/shm (no disk_util, fast); `disk`: os.tmpdir(), on the real disk. */
export function makeWorkspace(where: 'memory' | 'disk', label: string): Workspace {
  const base = where === 'memory' && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = mkdtempSync(join(base, `volbench-compat-${process.pid}-${label}-`));
  const fioDir = join(dir, 'fio');
  const volbenchDir = join(dir, 'volbench');
  mkdirSync(fioDir);
  mkdirSync(volbenchDir);
  return { dir, fioDir, volbenchDir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------------------------
// Running the tools.

export interface Printed {
  text: string;
  /** The document as JSON.parse reads it. */
  json: Json;
  /** The same document with number literals kept as printed. */
  tree: RawNode;
}

function printed(text: string): Printed {
  return { text, json: JSON.parse(text), tree: parseRawJson(text) };
}

export async function runFio(argv: string[], cwd: string): Promise<Printed> {
  const output = join(cwd, 'fio-output.json');
  await run('fio', [...argv, `--output=${output}`], { cwd, maxBuffer: 64 << 20 });
  // fio writes its warnings ("fio: Any use of blockalign= ...") into --output ahead of the JSON.
  const text = readFileSync(output, 'utf8');
  const start = text.search(/^\{/m);
  return printed(start > 0 ? text.slice(start) : text);
}

/** volbench through the library: parseFioArgs → parseSpec → runParsed → formatJson. */
export async function runVolbench(argv: string[], cwd: string): Promise<Printed> {
  const args = parseFioArgs(argv);
  const result = await runParsed(parseSpec(args.spec), { cwd });
  return printed(formatJson(result, { plus: args.outputFormats.includes('json+') }));
}

/** volbench through its CLI; stdout must be the JSON document alone. */
export async function runVolbenchCli(argv: string[], cwd: string): Promise<Printed> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  const { stdout } = await run(process.execPath, [CLI, 'run', ...argv], { cwd, maxBuffer: 64 << 20 });
  return printed(stdout);
}

export interface Pair {
  fio: Printed;
  volbench: Printed;
}

/** The same flags through fio, then volbench (one after the other: they share the target). */
export async function runBoth(argv: string[], ws: Workspace, via: 'library' | 'cli' = 'library'): Promise<Pair> {
  const fio = await runFio(argv, ws.fioDir);
  const volbench = via === 'cli' ? await runVolbenchCli(argv, ws.volbenchDir) : await runVolbench(argv, ws.volbenchDir);
  return { fio, volbench };
}

// ---------------------------------------------------------------------------------------------
// A JSON reader that keeps literals.

export type RawNode =
  | { kind: 'object'; entries: Array<[string, RawNode]> }
  | { kind: 'array'; items: RawNode[] }
  | { kind: 'number'; raw: string }
  | { kind: 'string'; value: string }
  | { kind: 'boolean' | 'null'; raw: string };

export function parseRawJson(text: string): RawNode {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\r\n'.includes(text[at])) at++;
  };
  const fail = (what: string): never => {
    throw new Error(`JSON: ${what} at offset ${at}: ${JSON.stringify(text.slice(at, at + 40))}`);
  };
  const expect = (c: string): void => {
    space();
    if (text[at] !== c) fail(`expected '${c}'`);
    at++;
  };
  const string = (): string => {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(at));
    if (!m) return fail('bad string');
    at += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const value = (): RawNode => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const entries: Array<[string, RawNode]> = [];
      space();
      if (text[at] === '}') return at++, { kind: 'object', entries };
      for (;;) {
        space();
        const key = string();
        expect(':');
        entries.push([key, value()]);
        space();
        if (text[at] === ',') at++;
        else return expect('}'), { kind: 'object', entries };
      }
    }
    if (c === '[') {
      at++;
      const items: RawNode[] = [];
      space();
      if (text[at] === ']') return at++, { kind: 'array', items };
      for (;;) {
        items.push(value());
        space();
        if (text[at] === ',') at++;
        else return expect(']'), { kind: 'array', items };
      }
    }
    if (c === '"') return { kind: 'string', value: string() };
    const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(at, at + 64));
    if (!m) return fail('unexpected value');
    at += m[0].length;
    if (m[0] === 'null') return { kind: 'null', raw: m[0] };
    if (m[0] === 'true' || m[0] === 'false') return { kind: 'boolean', raw: m[0] };
    return { kind: 'number', raw: m[0] };
  };
  const root = value();
  space();
  if (at !== text.length) fail('text after the document');
  return root;
}

// ---------------------------------------------------------------------------------------------
// What may differ between the two documents, all in one place.

export const ALLOWED_DIFFERENCES = {
  /** Key paths whose value is not compared (their type and position are). */
  values: {
    'fio version': 'names the tool that printed the document ("fio-3.33" / "volbench-x.y.z")',
  },
  /** Keys only volbench prints. */
  extraKeys: {
    volbench: 'volbench\'s own section (engine used, time series, target identity), DESIGN "Results"',
  },
  /** Keys whose content is compared by rule rather than key by key. */
  byRule: {
    bins: 'json+ latency buckets: the keys are the bucket values the run happened to fill; checked as '
      + '{"<integer ns>": integer count} summing to N, present exactly where fio has them',
    disk_util: 'present in both or absent in both; entries are per device (which devices each tool '
      + 'finds behind a target may differ), so only the first entry\'s keys and types are compared',
  },
  /** Numbers that come from each tool's own random generator, compared by sum only. */
  randomSplits: 'randrw read/write split and bssplit block-size mix: fio and volbench draw directions '
    + 'and sizes from different generators, so per-direction counts differ; per job, the bytes add '
    + 'up to the same total',
  /** fio keys that appear only where volbench does not produce the situation (none in this suite). */
  fioOnlySituations: 'client_stats/hostname/port (client/server mode), '
    + 'repeated documents (--status-interval): volbench refuses these options, no case uses them',
} as const;

// ---------------------------------------------------------------------------------------------
// Flattening a document to key paths.

const BINS: keyof typeof ALLOWED_DIFFERENCES.byRule = 'bins';
const DISK_UTIL: keyof typeof ALLOWED_DIFFERENCES.byRule = 'disk_util';

type Kind = RawNode['kind'];

interface Leaf {
  kind: Kind;
  raw?: string;
}

interface Flat {
  leaves: Map<string, Leaf>;
  /** Key order of every object, by path. */
  keyOrder: Map<string, string[]>;
  /** Every json+ bins object, by path. */
  bins: Map<string, RawNode>;
}

const pathText = (path: readonly string[]): string => path.join(' › ');

function flatten(node: RawNode, path: string[], flat: Flat): void {
  const key = pathText(path);
  flat.leaves.set(key, { kind: node.kind, ...('raw' in node ? { raw: node.raw } : {}) });
  if (path[path.length - 1] === BINS) {
    flat.bins.set(key, node);
    return;
  }
  if (node.kind === 'object') {
    flat.keyOrder.set(key, node.entries.map(([k]) => k));
    for (const [k, child] of node.entries) flatten(child, [...path, k], flat);
  } else if (node.kind === 'array') {
    const byRule = path.length === 1 && path[0] === DISK_UTIL;
    const items = byRule ? node.items.slice(0, 1) : node.items;
    items.forEach((child, i) => flatten(child, [...path, byRule ? '*' : String(i)], flat));
  }
}

export function flat(tree: RawNode): Flat {
  const out: Flat = { leaves: new Map(), keyOrder: new Map(), bins: new Map() };
  flatten(tree, [], out);
  return out;
}

const isExtra = (path: string): boolean =>
  Object.keys(ALLOWED_DIFFERENCES.extraKeys).some((k) => path === k || path.startsWith(`${k} › `));

/** Every key path fio prints, missing from volbench's document or of another JSON type. */
export function structureDifferences(fio: RawNode, volbench: RawNode): string[] {
  const f = flat(fio);
  const v = flat(volbench);
  const out: string[] = [];
  for (const [path, leaf] of f.leaves) {
    const other = v.leaves.get(path);
    if (!other) out.push(`${path}: fio prints it, volbench does not`);
    else if (other.kind !== leaf.kind) out.push(`${path}: fio prints a ${leaf.kind}, volbench a ${other.kind}`);
  }
  for (const path of v.leaves.keys()) {
    if (path !== '' && !f.leaves.has(path) && !isExtra(path)) out.push(`${path}: volbench prints it, fio does not`);
  }
  return out;
}

/** Objects whose keys (the ones both print) come in another order than fio's. */
export function keyOrderDifferences(fio: RawNode, volbench: RawNode): string[] {
  const f = flat(fio);
  const v = flat(volbench);
  const out: string[] = [];
  for (const [path, fioKeys] of f.keyOrder) {
    const vbKeys = v.keyOrder.get(path);
    if (!vbKeys) continue;
    const common = fioKeys.filter((k) => vbKeys.includes(k));
    const vbCommon = vbKeys.filter((k) => fioKeys.includes(k));
    if (common.join('\n') !== vbCommon.join('\n')) {
      out.push(`${path || '(top)'}: fio [${common.join(', ')}], volbench [${vbCommon.join(', ')}]`);
    }
  }
  return out;
}

const INTEGER = /^-?\d+$/;
const SIX_DECIMALS = /^-?\d+\.\d{6}$/;

function numberClass(raw: string): string {
  if (INTEGER.test(raw)) return 'an integer';
  if (SIX_DECIMALS.test(raw)) return 'six decimals';
  return 'neither';
}

/** Numbers fio prints as integers or with six decimals that volbench prints another way. */
export function numberFormatDifferences(fio: RawNode, volbench: RawNode): string[] {
  const f = flat(fio);
  const v = flat(volbench);
  const out: string[] = [];
  for (const [path, leaf] of f.leaves) {
    const other = v.leaves.get(path);
    if (leaf.kind !== 'number' || other?.kind !== 'number') continue;
    const want = numberClass(leaf.raw!);
    const got = numberClass(other.raw!);
    if (want !== got) out.push(`${path}: fio prints ${want} (${leaf.raw}), volbench ${got} (${other.raw})`);
  }
  return out;
}

/** Where json+ bins appear, by path (the same set is expected of both tools). */
export function binPaths(tree: RawNode): string[] {
  return [...flat(tree).bins.keys()];
}

/** A bins object's problems: keys must be integer ns, counts integers > 0 adding up to `n`. */
export function binsProblems(bins: RawNode, n: number): string[] {
  if (bins.kind !== 'object') return ['bins is not an object'];
  const out: string[] = [];
  let sum = 0;
  for (const [key, count] of bins.entries) {
    if (!/^\d+$/.test(key)) out.push(`bucket key ${key} is not an integer`);
    if (count.kind !== 'number' || !INTEGER.test(count.raw) || Number(count.raw) <= 0) {
      out.push(`bucket ${key} count is not a positive integer`);
    } else sum += Number(count.raw);
  }
  if (sum !== n) out.push(`bucket counts add up to ${sum}, N is ${n}`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// fio's percentile rule, written from its description (stat.c calc_clat_percentiles): walk the
// buckets in value order, the percentile p is the value of the first bucket where the running
// count reaches p/100·N. The comparison is exact on p's binary value.

function binaryFraction(x: number): [bigint, bigint] {
  let scaled = x;
  let den = 1n;
  while (!Number.isInteger(scaled)) {
    scaled *= 2; // exact in binary floating point
    den *= 2n;
  }
  return [BigInt(scaled), den];
}

function reaches(count: number, percent: number, n: number): boolean {
  const [num, den] = binaryFraction(percent);
  return BigInt(count) * 100n * den >= num * BigInt(n);
}

/** Percentiles rebuilt from json+ bins, keyed as fio keys them ("99.900000"). */
export function percentilesFromBins(
  bins: Record<string, number>,
  n: number,
  keys: readonly string[],
): Record<string, number | undefined> {
  const buckets = Object.entries(bins).map(([v, c]) => [Number(v), c] as const).sort((a, b) => a[0] - b[0]);
  const out: Record<string, number | undefined> = {};
  for (const key of keys) {
    const percent = Number(key);
    let sum = 0;
    out[key] = undefined;
    for (const [value, count] of buckets) {
      sum += count;
      if (reaches(sum, percent, n)) {
        out[key] = value;
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Numbers that must hold in any run.

export const LATENCY_KINDS = ['slat_ns', 'clat_ns', 'lat_ns'] as const;

/** A bucket spans less than 1/64 of its value, so a reported midpoint is off by less than that. */
const BUCKET_SLACK = 1 / 64;

/**
 * A latency block's percentiles: non-decreasing in key order, and within [min, max] up to one
 * bucket. Returns the problems found.
 */
export function percentileProblems(lat: Json, where: string): string[] {
  const out: string[] = [];
  if (!lat?.percentile) return out;
  const entries = Object.entries(lat.percentile as Record<string, number>)
    .sort((a, b) => Number(a[0]) - Number(b[0]));
  let previous = -Infinity;
  for (const [key, value] of entries) {
    if (value < previous) out.push(`${where} p${key} = ${value} < the percentile before it (${previous})`);
    if (value < lat.min * (1 - BUCKET_SLACK)) out.push(`${where} p${key} = ${value} under min ${lat.min}`);
    if (value > lat.max * (1 + BUCKET_SLACK)) out.push(`${where} p${key} = ${value} over max ${lat.max}`);
    previous = value;
  }
  return out;
}

/** Percentile key lists of every latency kind of every job, by path. */
export function percentileKeys(doc: Json): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  (doc.jobs as Json[]).forEach((job, i) => {
    for (const section of ['read', 'write', 'trim', 'mixed', 'sync']) {
      for (const kind of LATENCY_KINDS) {
        const p = job[section]?.[kind]?.percentile;
        if (p) out[`jobs › ${i} › ${section} › ${kind}`] = Object.keys(p);
      }
    }
  });
  return out;
}

/**
 * The arithmetic fio's stat.c does on one direction, checked on a printed direction: bandwidth
 * from bytes over runtime (integer division, as fio), KiB, IOPS.
 */
export function directionArithmeticProblems(d: Json, where: string): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) out.push(`${where}: ${what}`);
  };
  check(d.io_kbytes === Math.floor(d.io_bytes / 1024), `io_kbytes ${d.io_kbytes} != io_bytes/1024 (${d.io_bytes})`);
  if (d.runtime > 0) {
    const bw = Number((BigInt(d.io_bytes) * 1000n) / BigInt(d.runtime));
    check(d.bw_bytes === bw, `bw_bytes ${d.bw_bytes} != floor(1000·${d.io_bytes}/${d.runtime}) = ${bw}`);
    check(d.bw === Math.floor(d.bw_bytes / 1024), `bw ${d.bw} != floor(bw_bytes/1024)`);
    check(Math.abs(d.iops - (1000 * d.total_ios) / d.runtime) < 1e-5, `iops ${d.iops} != 1000·${d.total_ios}/${d.runtime}`);
  } else {
    check(d.bw_bytes === 0 && d.iops === 0, 'bandwidth without runtime');
  }
  return out;
}

/** Latency sample counts of one direction: clat and lat count every I/O, slat too on async engines. */
export function sampleCountProblems(d: Json, where: string, slatCounted: boolean): string[] {
  const out: string[] = [];
  const n = d.total_ios;
  if (d.clat_ns.N !== n) out.push(`${where}: clat_ns.N ${d.clat_ns.N} != total_ios ${n}`);
  if (d.lat_ns.N !== n) out.push(`${where}: lat_ns.N ${d.lat_ns.N} != total_ios ${n}`);
  const slat = slatCounted ? n : 0;
  if (d.slat_ns.N !== slat) out.push(`${where}: slat_ns.N ${d.slat_ns.N} != ${slat}`);
  if (d.short_ios !== 0 || d.drop_ios !== 0) out.push(`${where}: short_ios ${d.short_ios}, drop_ios ${d.drop_ios}`);
  return out;
}

export interface TimeBased {
  runtimeMs: number;
  /** Job instances behind one entry (numjobs under group_reporting, else 1). */
  instances: number;
  /** Directions the job moves data in. */
  directions: ReadonlyArray<'read' | 'write' | 'trim' | 'mixed'>;
}

/** Within a few percent of the requested runtime. */
const RUNTIME_SLACK = 0.05;

/** A time-based entry: runtimes close to the requested one, work done, fio's arithmetic. */
export function timeBasedProblems(job: Json, where: string, t: TimeBased): string[] {
  const out: string[] = [];
  const near = (got: number, want: number, what: string): void => {
    if (Math.abs(got - want) > want * RUNTIME_SLACK) out.push(`${where}: ${what} ${got} ms, asked ${want} ms`);
  };
  near(job.job_runtime, t.runtimeMs * t.instances, 'job_runtime');
  for (const dir of t.directions) {
    const d = job[dir];
    near(d.runtime, t.runtimeMs, `${dir}.runtime`);
    for (const key of ['io_bytes', 'total_ios', 'bw_bytes', 'bw', 'iops', 'bw_mean', 'iops_mean', 'bw_samples', 'iops_samples']) {
      if (!(d[key] > 0)) out.push(`${where}: ${dir}.${key} is ${d[key]}, not positive`);
    }
    for (const kind of ['clat_ns', 'lat_ns'] as const) {
      for (const key of ['min', 'max', 'mean']) {
        if (!(d[kind][key] > 0)) out.push(`${where}: ${dir}.${kind}.${key} is ${d[kind][key]}, not positive`);
      }
    }
    out.push(...directionArithmeticProblems(d, `${where} ${dir}`));
  }
  return out;
}

/** Every direction's arithmetic and percentiles, for each job of a document. */
export function documentRuleProblems(doc: Json): string[] {
  const out: string[] = [];
  (doc.jobs as Json[]).forEach((job, i) => {
    for (const dir of ['read', 'write', 'trim', 'mixed']) {
      if (!job[dir]) continue;
      out.push(...directionArithmeticProblems(job[dir], `jobs[${i}].${dir}`));
      for (const kind of LATENCY_KINDS) out.push(...percentileProblems(job[dir][kind], `jobs[${i}].${dir}.${kind}`));
    }
    if (job.sync) out.push(...percentileProblems(job.sync.lat_ns, `jobs[${i}].sync.lat_ns`));
  });
  return out;
}

/**
 * The checks every case makes on its pair of documents: fio's keys and types, their order, number
 * printing, percentile keys, the "job options" echo, and fio's arithmetic inside each document
 * (checked on fio's own document too, which keeps the rules honest).
 */
export function itPrintsWhatFioPrints(label: string, pair: () => Pair): void {
  it(`${label}: volbench has every key fio prints, with the same types`, () => {
    expect(structureDifferences(pair().fio.tree, pair().volbench.tree)).toEqual([]);
  });
  it(`${label}: volbench prints fio's keys in fio's order`, () => {
    expect(keyOrderDifferences(pair().fio.tree, pair().volbench.tree)).toEqual([]);
  });
  it(`${label}: volbench prints integers and six-decimal floats where fio does`, () => {
    expect(numberFormatDifferences(pair().fio.tree, pair().volbench.tree)).toEqual([]);
  });
  it(`${label}: the same percentile keys per latency kind`, () => {
    expect(percentileKeys(pair().volbench.json)).toEqual(percentileKeys(pair().fio.json));
  });
  it(`${label}: "job options" echo the command line as fio does`, () => {
    const options = (doc: Json): unknown[] => (doc.jobs as Json[]).map((j) => j['job options']);
    expect(options(pair().volbench.json)).toEqual(options(pair().fio.json));
  });
  it(`${label}: bandwidth, IOPS and percentiles follow fio's arithmetic (fio's document too)`, () => {
    expect(documentRuleProblems(pair().fio.json)).toEqual([]);
    expect(documentRuleProblems(pair().volbench.json)).toEqual([]);
  });
}
