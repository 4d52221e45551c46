/**
 * Properties of the parsers that read what a user types: job files, JSON specs, sizes and times,
 * and fio's command line with volbench's own flags (tests/gates/properties.test.ts: assertions).
 * For any text, and for valid input with random edits, each returns or throws a VolbenchError:
 * never a TypeError, a RangeError (a stack overflow is one), a plain Error or a hang. A job file that parses prints
 * back (printJobFile) to one that parses to the same jobs. And each runs in linear time: 8× the
 * input costs well under 64× (quadratic) on the worst repeats we know of.
 *
 * What a property or a timing found is pinned beside the case that found it.
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
import { linearRatio, LINEAR_RATIO } from '../helpers/growth.js';
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

const K = 1024;

describe('linear time on adversarial repeats (8× the input, best of 3)', () => {
  const jobFile = (make: (n: number) => string) => (n: number) => {
    const text = make(n);
    return () => parseJobFile(text, ENV);
  };
  const spec = (make: (n: number) => string) => (n: number) => {
    const text = make(n);
    return () => parseSpec(parseJobFile(text, ENV));
  };
  const KNOWN = 'rw=randrw\nbs=4k,8k\niodepth=32\nsize=1g\nruntime=10s\ntime_based\nioengine=libaio\nrwmixread=70\n';

  it.each<[string, (n: number) => () => unknown, number]>([
    ['job names of [', jobFile((n) => `[${'['.repeat(200)}]\n`.repeat(n)), 400],
    ['a description of =', spec((n) => `[a]\ndescription=${'='.repeat(n)}\n`), 500],
    ['a size of digits', spec((n) => `[a]\nsize=${'1'.repeat(n)}x\n`), 500],
    ['arithmetic nested in parentheses', spec((n) => `[a]\nnumjobs=${'('.repeat(n)}$ncpus${')'.repeat(n)}\n`), 120],
    ['arithmetic with unclosed parentheses', spec((n) => `[a]\nnumjobs=$ncpus+${'(('.repeat(n)}\n`), 60],
    ['unary signs', spec((n) => `[a]\nnumjobs=$ncpus${'+-'.repeat(n)}1\n`), 60],
    ['unclosed ${', jobFile((n) => `[a]\nfilename=${'${'.repeat(n)}\n`), 500],
    ['${A} expansions', spec((n) => `[a]\nfilename=${'${A}'.repeat(n)}\n`), 200],
    ['lines of ${A}', jobFile((n) => `[a]\n${'description=${A}${A}\n'.repeat(n)}`), 1000],
    ['include directives', jobFile((n) => `[a]\n${'include other.fio\n'.repeat(n)}`), 2000],
    ['commented includes and headers', jobFile((n) => `[a]\n${'; include x [y] = ${\n'.repeat(n)}`), 2000],
    ['one option line repeated', spec((n) => `[a]\n${'bs=4k\n'.repeat(n)}`), 2000],
    ['a long bssplit', spec((n) => `[a]\nbssplit=${'4k/1:'.repeat(n)}\n`), 100],
    ['a long percentile_list', spec((n) => `[a]\npercentile_list=${'9'.repeat(n)}.5\n`), 500],
    // Thousands of jobs: the collector's share grows with what the parse keeps, so stay small.
    ['jobs of eight options', spec((n) => `[j]\n${KNOWN}`.repeat(n)), 25],
    ['[global] sections between jobs', spec((n) => '[global]\nbs=8k\n[j]\nsize=1m\n'.repeat(n)), 25],
    ['printJobFile of many jobs', (n) => {
      const parsed = parseSpec(parseJobFile(`[j]\n${KNOWN}`.repeat(n), {}));
      return () => printJobFile(parsed);
    }, 25],
  ])('job files: %s', (_, make, n) => {
    expect(linearRatio(make, n)).toBeLessThan(LINEAR_RATIO);
  });

  const value = (parse: (text: string) => unknown, make: (n: number) => string) => (n: number) => {
    const text = make(n);
    return () => parse(text);
  };
  const size = (t: string) => parseSize(t);
  const time = (t: string) => parseTimeNs(t, { defaultUnit: 's' });

  it.each<[string, (n: number) => () => unknown, number]>([
    ['size: digits', value(size, (n) => '1'.repeat(n)), 4 * K],
    ['size: digits then a bad unit', value(size, (n) => `${'1'.repeat(n)}x`), 4 * K],
    ['size: hex', value(size, (n) => `0x${'f'.repeat(n)}`), 4 * K],
    ['size: a fraction', value(size, (n) => `1.${'1'.repeat(n)}k`), 4 * K],
    ['size: parentheses', value(size, (n) => '('.repeat(n)), 4 * K],
    ['size: unit letters', value(size, (n) => `1${'k'.repeat(n)}`), 4 * K],
    ['size: blanks', value(size, (n) => `${' '.repeat(n)}1${' '.repeat(n)}`), 4 * K],
    ['percentages', value((t) => parseSizeOrPercent(t), (n) => `${'9'.repeat(n)}%`), 4 * K],
    ['time: digits', value(time, (n) => '9'.repeat(n)), 4 * K],
    ['time: digits then ms', value(time, (n) => `${'9'.repeat(n)}ms`), 4 * K],
    ['time: unit letters', value(time, (n) => `1${'s'.repeat(n)}`), 4 * K],
    ['time: a fraction', value(time, (n) => `1.${'5'.repeat(n)}s`), 4 * K],
    // Found by this test: BigInt read the digits before the 64-bit check, and its decimal
    // conversion is super-linear (32,000 digits took 35 times as long as 4,000).
    ['seed: digits', value((t) => parseRandseed(t), (n) => '1'.repeat(n)), 4 * K],
    ['seed: hex digits', value((t) => parseRandseed(t), (n) => `0x${'f'.repeat(n)}`), 4 * K],
    ['seed: zeros then a digit', value((t) => parseRandseed(t), (n) => `${'0'.repeat(n)}1`), 4 * K],
    ['decimal: digits', value((t) => parseDecimal(t, { accepted: 'x' }), (n) => `${'1'.repeat(n)}x`), 4 * K],
    ['decimal: exponent digits', value((t) => parseDecimal(t, { accepted: 'x' }), (n) => `1e${'1'.repeat(n)}x`), 4 * K],
  ])('values: %s', (_, make, n) => {
    expect(linearRatio(make, n)).toBeLessThan(LINEAR_RATIO);
  });

  const argv = (make: (n: number) => string[]) => (n: number) => {
    const args = make(n);
    return () => parseSpec(parseFioArgs(extractOwnFlags(args).rest).spec);
  };

  it.each<[string, (n: number) => () => unknown, number]>([
    ['jobs of options', argv((n) => Array.from({ length: n }, (_, i) => [`--name=j${i}`, '--rw=randread', '--bs', '4k', '-iodepth=8']).flat()), 50],
    ['one option repeated', argv((n) => ['--name=a', ...Array(n).fill('--bs=4k')]), 500],
    ['an option of =', argv((n) => ['--name=a', `--${'='.repeat(n)}`]), 2 * K],
    ['a value of digits', argv((n) => ['--name=a', `--size=${'1'.repeat(n)}`]), 500],
    ['dashes', argv((n) => ['--name=a', '-'.repeat(n)]), 2 * K],
    ['repeated assertions', argv((n) => ['--name=a', ...Array(n).fill('--assert=a.iops >= 1')]), 500],
    ['an --output-format list', argv((n) => ['--name=a', `--output-format=${'json,'.repeat(n)}json`]), 500],
    ['a --volume of commas', argv((n) => ['--name=a', `--volume=gp3:${','.repeat(n)}`]), 30],
  ])('command lines: %s', (_, make, n) => {
    expect(linearRatio(make, n)).toBeLessThan(LINEAR_RATIO);
  });
});
