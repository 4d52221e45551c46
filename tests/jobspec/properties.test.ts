/**
 * Properties of the parsers that read what a user types: job files, JSON specs, sizes and times,
 * and fio's command line with volbench's own flags (tests/gates/properties.test.ts: assertions).
 * For any text, and for valid input with random edits, each returns or throws a VolbenchError:
 * never a TypeError, a RangeError (a stack overflow is one), a plain Error or a hang. A job file that parses prints
 * back (printJobFile) to one that parses to the same jobs. That each runs in linear time is
 * tests/jobspec/linear-time.test.ts's.
 *
 * What a property found is pinned beside the case that found it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

import { extractOwnFlags } from '../../src/cli/own-flags.js';
import { VolbenchError } from '../../src/errors.js';
import {
  parseBool, parseDecimal, parseFioArgs, parseInteger, parseJobFile, parseRandseed, parseSize, parseSizeOrPercent,
  parseSpec, parseTimeNs, printJobFile, SUPPORTED_NAMES, type ParsedSpec,
} from '../../src/jobspec/index.js';
import { answer } from '../helpers/errors.js';
import {
  anyText, fioArgv, jobFileText, mutated, mutatedArgv, mutatedValues, sizeText, timeText,
} from '../helpers/arbitraries.js';
import { requires } from '../helpers/requires.js';

requires();

/** A few variables for `${NAME}`; the rest are unset. */
const ENV = { A: 'a', N: '4', DEV: '/tmp/vb-props-dev', EMPTY: '' };

/** Runs per property; VOLBENCH_PROPERTY_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.VOLBENCH_PROPERTY_RUNS ?? 150);

function options(spec: ParsedSpec) {
  return spec.jobs.map((job) => job.options);
}

/**
 * A job file through the whole spec stage; when it parses, its printed form must parse to the
 * same jobs (or be refused as unwritable, with a VolbenchError).
 */
function throughJobFile(text: string): void {
  const parsed = answer(() => parseSpec(parseJobFile(text, ENV)));
  if (parsed instanceof VolbenchError) return;
  const printed = answer(() => printJobFile(parsed));
  if (printed instanceof VolbenchError) return;
  expect(options(parseSpec(parseJobFile(printed, {})))).toEqual(options(parsed));
}

describe('parseJobFile and parseSpec', () => {
  it('return or throw a VolbenchError for any text', () => {
    const lines = fc.array(anyText, { maxLength: 12 }).map((ls) => ls.join('\n'));
    fc.assert(fc.property(fc.oneof(anyText, lines), throughJobFile), { numRuns: RUNS });
  });

  it('return or throw a VolbenchError for job files with random edits, and what parses prints back', () => {
    const edited = fc.oneof(mutated(jobFileText({ decorate: true })), mutatedValues(jobFileText({ decorate: true })));
    fc.assert(fc.property(edited, throughJobFile), { numRuns: RUNS * 3 });
  });

  it('take any job file of the grammar and its printed form to the same jobs', () => {
    fc.assert(fc.property(jobFileText({ decorate: true }), throughJobFile), { numRuns: RUNS });
  });
});

describe('parseSpec on the JSON form (the service\'s body)', () => {
  /** A spec's JSON through parseSpec; what parses must print and read back to the same jobs. */
  const throughSpec = (body: unknown) => {
    const parsed = answer(() => parseSpec(body));
    if (parsed instanceof VolbenchError) return;
    const printed = answer(() => printJobFile(parsed));
    if (!(printed instanceof VolbenchError)) expect(options(parseSpec(parseJobFile(printed, {})))).toEqual(options(parsed));
  };

  it('returns or throws a VolbenchError for any JSON', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), throughSpec), { numRuns: RUNS });
  });

  it('returns or throws a VolbenchError for specs of real option names and any values', () => {
    const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...SUPPORTED_NAMES) }, anyText);
    const value = fc.oneof(anyText, sizeText(), timeText, fc.double(), fc.integer(), fc.boolean(), fc.constantFrom(1e21, -0, 2 ** 53, 0.1));
    const section = fc.dictionary(name, value, { maxKeys: 6 });
    const body = fc.record({ global: section, jobs: fc.array(section, { minLength: 1, maxLength: 3 }) }, { requiredKeys: ['jobs'] })
      .map((b) => ({ ...b, jobs: b.jobs.map((job, i) => ({ name: `j${i}`, ...job })) }));
    fc.assert(fc.property(body, throughSpec), { numRuns: RUNS * 2 });
  });
});

describe('value parsers', () => {
  const kbBase = fc.constantFrom(1000 as const, 1024 as const);
  const everyParser = (text: string, kb: 1000 | 1024) => {
    const ctx = { field: 'jobs[0].x', kbBase: kb };
    const size = answer(() => parseSize(text, ctx));
    if (typeof size === 'number') expect(Number.isSafeInteger(size) && size >= 0).toBe(true);
    answer(() => parseSizeOrPercent(text, { ...ctx, minPercent: 0 }));
    answer(() => parseInteger(text, { ...ctx, min: 1, max: 65535 }));
    for (const defaultUnit of ['s', 'us'] as const) {
      const ns = answer(() => parseTimeNs(text, { ...ctx, defaultUnit }));
      if (typeof ns === 'number') expect(Number.isSafeInteger(ns) && ns % 1000 === 0).toBe(true);
    }
    answer(() => parseBool(text, ctx));
    answer(() => parseRandseed(text, ctx));
    answer(() => parseDecimal(text, { ...ctx, accepted: 'a number' }));
  };

  it('sizes, times, integers, booleans, seeds and decimals return or throw a VolbenchError for any text', () => {
    fc.assert(fc.property(anyText, kbBase, everyParser), { numRuns: RUNS * 2 });
  });

  it('do the same for sizes and times with random edits', () => {
    fc.assert(fc.property(mutated(fc.oneof(sizeText(), timeText)), kbBase, everyParser), { numRuns: RUNS * 2 });
  });

  it('read every size and time of the grammar', () => {
    fc.assert(fc.property(sizeText(), kbBase, (text, kb) => {
      expect(Number.isSafeInteger(parseSize(text, { kbBase: kb }))).toBe(true);
    }), { numRuns: RUNS });
    fc.assert(fc.property(timeText, (text) => {
      expect(parseTimeNs(text, { defaultUnit: 's' }) % 1000).toBe(0);
    }), { numRuns: RUNS });
  });
});

describe('the command line: volbench own flags, then fio\'s', () => {
  const dir = mkdtempSync(join(tmpdir(), `vb-props-${process.pid}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Never `-`: fio reads a job file from stdin then. */
  const safe = (argv: string[]) => argv.map((arg) => (arg === '-' ? '-x' : arg));

  const throughArgs = (argv: string[]) => {
    const own = answer(() => extractOwnFlags(argv, { volumeFromAws: true }));
    if (own instanceof VolbenchError) return;
    const args = answer(() => parseFioArgs(own.rest, { env: ENV }));
    if (!(args instanceof VolbenchError)) answer(() => parseSpec(args.spec));
  };

  it('return or throw a VolbenchError for any options', () => {
    // Every argument an option (never a job file): `--` and `-` alone are left out.
    const option = anyText.map((a) => (a.startsWith('-') && a !== '-' && a !== '--' ? a : `--x${a}`));
    fc.assert(fc.property(fc.array(option, { maxLength: 12 }), throughArgs), { numRuns: RUNS * 2 });
  });

  it('return or throw a VolbenchError for command lines and job files with random edits', () => {
    let k = 0;
    const withFile = fc.tuple(mutatedArgv(fioArgv()), fc.option(mutated(jobFileText()), { nil: undefined }))
      .map(([argv, file]) => {
        if (file === undefined) return safe(argv);
        const path = join(dir, `job${k++ % 4}.fio`);
        writeFileSync(path, file);
        return [...safe(argv), path];
      });
    fc.assert(fc.property(withFile, throughArgs), { numRuns: RUNS * 2 });
  });
});
