/**
 * The parsers that read what a user types run in linear time: for the worst repeats we know of in
 * job files, values and command lines, 8× the input costs well under 64× (quadratic). Timed, so
 * the file runs with no other test file beside it (requires('serial')); each ratio is the best of
 * three batches, measured again while it is over the bound, since a parser that is really
 * quadratic stays over every time. (tests/jobspec/properties.test.ts holds the parsers' other
 * properties.) What a timing found is pinned beside the case that found it.
 */
import { describe, expect, it } from 'vitest';

import { extractOwnFlags } from '../../src/cli/own-flags.js';
import { parseDecimal, parseFioArgs, parseJobFile, parseRandseed, parseSize, parseSizeOrPercent, parseSpec, parseTimeNs, printJobFile } from '../../src/jobspec/index.js';
import { linearRatio, LINEAR_RATIO } from '../helpers/growth.js';
import { requires } from '../helpers/requires.js';

requires('serial');

/** A few variables for `${NAME}`; the rest are unset. */
const ENV = { A: 'a', N: '4', DEV: '/tmp/vb-props-dev', EMPTY: '' };
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
