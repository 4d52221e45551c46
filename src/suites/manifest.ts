/**
 * The suite manifest (suites/index.json): each shipped suite's job file, what a job file cannot
 * say (how many times each test runs, the target it needs, the media it is for: SSD or HDD
 * volumes, or any), and the questions it answers (a test's metric, and whether higher or lower
 * is better), which reports turn into verdicts. A suite's tests are its job file's sections,
 * read from the job file: the manifest never spells them again, and a question naming a test
 * the job file lacks is refused.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

import { VolbenchError } from '../errors.js';
import { parseJobFile } from '../jobspec/index.js';

/** What a report can say of a test, and of a volume's price against it. */
export const QUESTION_METRICS = ['iops', 'mibps', 'p50_us', 'p99_us', 'usd_per_1000_iops', 'usd_per_mibps'] as const;

const SuiteQuestion = z.object({
  /** In words, as a verdict line opens: "lowest $ per 1,000 IOPS at 16 KiB random reads". */
  question: z.string().min(1).max(200),
  /** The test (a job of the suite's job file) the answer is read from. */
  test: z.string().min(1).max(64),
  metric: z.enum(QUESTION_METRICS),
  better: z.enum(['higher', 'lower']),
}).strict();

const SuiteEntry = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/),
  /** The job file in `suites/`. */
  file: z.string().regex(/^[a-z0-9][a-z0-9-]*\.fio$/),
  /** One line: what the suite measures. */
  title: z.string().min(1),
  /** Where the tests come from. */
  source: z.string().min(1),
  /** Default number of runs of each test; the result keeps the best. */
  loops: z.number().int().min(1).max(1000),
  /** `any`: a directory or a file or device; `block-device`: a whole block device (--filename). */
  target: z.enum(['any', 'block-device']),
  /** The volumes it is for: SSD, HDD, or any. */
  media: z.enum(['ssd', 'hdd', 'any']),
  /** The suite a fleet runs on volumes of this media under `--suite auto` (one suite per media). */
  fleet_default: z.enum(['ssd', 'hdd']).optional(),
  questions: z.array(SuiteQuestion).max(32),
}).strict();

const Manifest = z.object({
  $comment: z.string().optional(),
  suites: z.array(SuiteEntry).min(1),
}).strict();

export type SuiteQuestion = z.infer<typeof SuiteQuestion>;
export type SuiteEntry = z.infer<typeof SuiteEntry>;

/** A suite of the manifest with its tests, read from its job file in order. */
export interface ManifestSuite extends SuiteEntry {
  tests: string[];
}

function refuse(file: string, field: string, message: string): never {
  throw new VolbenchError('EINVALID_SPEC', `suite manifest ${file}: ${field}: ${message}`, { path: file, field });
}

/** The manifest's entries, checked against its schema (no job file read). */
export function parseManifestEntries(text: string, file: string): SuiteEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    refuse(file, '', `not JSON: ${(err as Error).message}`);
  }
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    refuse(file, issue.path.join('.'), issue.message);
  }
  const names = parsed.data.suites.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) refuse(file, 'suites', `'${twice}' is named twice`);
  parsed.data.suites.forEach((s, i) => {
    if (s.fleet_default === undefined) return;
    if (s.media !== s.fleet_default) refuse(file, `suites.${i}.fleet_default`, `'${s.fleet_default}' is not the suite's media '${s.media}'`);
    const first = parsed.data.suites.findIndex((o) => o.fleet_default === s.fleet_default);
    if (first !== i) refuse(file, `suites.${i}.fleet_default`, `'${s.fleet_default}' is already ${parsed.data.suites[first].name}'s`);
  });
  return parsed.data.suites;
}

/** Each entry with its tests, from `readJobFile(file)`; a question on a test the job file lacks is refused. */
export function withTests(entries: readonly SuiteEntry[], readJobFile: (file: string) => string, file: string): ManifestSuite[] {
  return entries.map((entry, i) => {
    // No environment: a shipped suite means the same on every machine.
    const tests = [...new Set(parseJobFile(readJobFile(entry.file), {}).jobs.map((j) => String(j.name)))];
    entry.questions.forEach((q, k) => {
      if (!tests.includes(q.test)) refuse(file, `suites.${i}.questions.${k}.test`, `${entry.file} has no test '${q.test}' (it has ${tests.join(', ')})`);
    });
    return { ...entry, tests };
  });
}

const MANIFEST_URL = new URL('../../suites/index.json', import.meta.url);

let entries: SuiteEntry[] | undefined;
let suites: ManifestSuite[] | undefined;

/** The manifest's entries (the index alone: cheap, for names and titles). */
export function manifestEntries(): SuiteEntry[] {
  entries ??= parseManifestEntries(readFileSync(MANIFEST_URL, 'utf8'), 'suites/index.json');
  return entries;
}

/** Every shipped suite with its tests and questions, read once. */
export function suiteManifest(): ManifestSuite[] {
  suites ??= withTests(manifestEntries(), (name) => readFileSync(new URL(name, MANIFEST_URL), 'utf8'), 'suites/index.json');
  return suites;
}

/** A shipped suite's tests, or undefined for a name the manifest does not have. */
export function manifestTests(name: string): readonly string[] | undefined {
  return suiteManifest().find((s) => s.name === name)?.tests;
}

/** The suite `--suite auto` gives a volume of this media (the manifest's `fleet_default`), or undefined. */
export function fleetDefaultSuite(media: string): string | undefined {
  return manifestEntries().find((s) => s.fleet_default === media)?.name;
}
