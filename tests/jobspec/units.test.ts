/**
 * fio's value parsers: sizes, percentages, times, integers, booleans, seeds. Expected values are
 * what fio 3.33 computes (parse.c), checked against the fio binary where fio and its HOWTO differ.
 */
import { describe, expect, it } from 'vitest';

import {
  parseBool, parseDecimal, parseInteger, parseRandseed, parseSize, parseSizeOrPercent, parseTimeNs,
} from '../../src/jobspec/index.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

requires();

describe('sizes', () => {
  it.each([
    ['4096', 4096], ['4096b', 4096], ['4096B', 4096], ['4k', 4096], ['4K', 4096], ['4kb', 4096],
    ['4KB', 4096], ['1m', 1048576], ['1M', 1048576], ['256M', 268435456], ['1g', 1073741824],
    ['1t', 1099511627776], ['1p', 1125899906842624], ['0x1000', 4096], ['0', 0],
  ])('%s parses as %d with kb_base=1024', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
    expect(parseSize(text, { kbBase: 1024 })).toBe(bytes);
  });

  it.each([
    ['4KiB', 4000], ['4kib', 4000], ['1mib', 1000000], ['1MiB', 1000000], ['1GiB', 1e9], ['1TiB', 1e12],
  ])('%s parses as %d with kb_base=1024 (fio inverts the IEC prefixes in compatibility mode)', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  it.each([['4ki', 4096], ['4Ki', 4096], ['1mi', 1048576], ['1gi', 1073741824]])(
    '%s parses as %d with kb_base=1024: only the full KiB form switches base, as fio really does',
    (text, bytes) => {
      expect(parseSize(text)).toBe(bytes);
    },
  );

  it.each([
    ['4k', 4000], ['4K', 4000], ['4kb', 4000], ['4ki', 4000], ['1m', 1000000], ['1g', 1e9],
    ['4KiB', 4096], ['4kib', 4096], ['1MiB', 1048576], ['1GiB', 1073741824], ['4096', 4096], ['0x1000', 4096],
  ])('%s parses as %d with kb_base=1000', (text, bytes) => {
    expect(parseSize(text, { kbBase: 1000 })).toBe(bytes);
  });

  it('surrounding blanks are ignored', () => {
    expect(parseSize('  4k ')).toBe(4096);
  });

  it.each([['1.5g', 'fraction'], ['4x', 'unit'], ['4 k', 'size'], ['-4k', 'size'], ['k', 'size'], ['', 'size'], ['4kbb', 'unit']])(
    '%s is refused with EINVALID_VALUE (%s)',
    (text) => {
      const err = errorOf(() => parseSize(text, { field: 'jobs[0].size' }));
      expect(err.code).toBe('EINVALID_VALUE');
      expect(err.field).toBe('jobs[0].size');
      expect(err.message).toContain('jobs[0].size');
      expect(err.accepted).toMatch(/kb_base/);
    },
  );

  it('a fractional size says fio would cut the fraction', () => {
    expect(errorOf(() => parseSize('1.5g')).message).toMatch(/whole numbers/);
  });

  it('an arithmetic expression is not supported yet', () => {
    expect(errorOf(() => parseSize('(4k*2)')).code).toBe('EUNSUPPORTED_OPTION');
  });

  it('a size beyond 2^53 is refused rather than rounded', () => {
    expect(errorOf(() => parseSize('9000p')).code).toBe('EINVALID_VALUE');
  });
});

describe('percentages', () => {
  it('size=50% is a percentage of the target', () => {
    expect(parseSizeOrPercent('50%')).toEqual({ percent: 50 });
    expect(parseSizeOrPercent('100%')).toEqual({ percent: 100 });
  });

  it('a size stays bytes', () => {
    expect(parseSizeOrPercent('1g')).toEqual({ bytes: 1073741824 });
  });

  it('percentages above 100 or below the minimum are refused', () => {
    expect(errorOf(() => parseSizeOrPercent('150%')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseSizeOrPercent('0%', { minPercent: 1 })).code).toBe('EINVALID_VALUE');
    expect(parseSizeOrPercent('0%', { minPercent: 0 })).toEqual({ percent: 0 });
  });

  it('a size in zones (fio zoned mode) is not supported yet', () => {
    expect(errorOf(() => parseSizeOrPercent('10z')).code).toBe('EUNSUPPORTED_OPTION');
    expect(errorOf(() => parseSize('10z')).code).toBe('EINVALID_VALUE');
  });

  it('a percentage where only sizes go is refused', () => {
    expect(errorOf(() => parseSize('50%')).message).toMatch(/percentage/);
  });
});

describe('times', () => {
  const S = 1e9;
  it.each([
    ['60s', 60 * S], ['2m', 120 * S], ['1h', 3600 * S], ['1d', 86400 * S], ['500ms', 0.5 * S],
    ['500msec', 0.5 * S], ['10us', 10_000], ['10usec', 10_000], ['2', 2 * S], ['0', 0], ['10S', 10 * S], ['1H', 3600 * S],
  ])('%s is %d ns where a bare number means seconds (runtime)', (text, ns) => {
    expect(parseTimeNs(text, { defaultUnit: 's' })).toBe(ns);
  });

  it('a bare number means microseconds where fio says so (thinktime)', () => {
    expect(parseTimeNs('100', { defaultUnit: 'us' })).toBe(100_000);
    expect(parseTimeNs('1s', { defaultUnit: 'us' })).toBe(1e9);
  });

  it.each(['10sec', '1min', '1.5s', '-1', 's', '1 s', '0x10'])('%s is refused (fio would misread it)', (text) => {
    const err = errorOf(() => parseTimeNs(text, { defaultUnit: 's', field: 'global.runtime' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('global.runtime');
    expect(err.accepted).toMatch(/ms/);
  });

  it('an unknown unit says fio would read it as microseconds', () => {
    expect(errorOf(() => parseTimeNs('10sec', { defaultUnit: 's' })).message).toMatch(/microseconds/);
  });
});

describe('integers', () => {
  it('take size suffixes as fio does', () => {
    expect(parseInteger('32')).toBe(32);
    expect(parseInteger('1k')).toBe(1024);
    expect(parseInteger('1k', { kbBase: 1000 })).toBe(1000);
    expect(parseInteger('0x10')).toBe(16);
  });

  it('check their range and say it', () => {
    const err = errorOf(() => parseInteger('0', { min: 1, max: 100, field: 'jobs[0].iodepth' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('jobs[0].iodepth');
    expect(err.accepted).toBe('a whole number from 1 to 100 (unit suffixes such as k are allowed, as in fio)');
    expect(errorOf(() => parseInteger('101', { max: 100 })).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseInteger('50%')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseInteger('abc')).code).toBe('EINVALID_VALUE');
  });
});

describe('booleans', () => {
  it('are 1 and 0, as fio (check_int)', () => {
    expect(parseBool('1')).toBe(true);
    expect(parseBool('0')).toBe(false);
    expect(parseBool('0x1')).toBe(true);
    expect(parseBool(' 1 ')).toBe(true);
  });

  it.each(['true', 'yes', 'on', 'false', 'no', 'off', '2', ''])('%s is refused, as fio refuses it', (text) => {
    const err = errorOf(() => parseBool(text, { field: 'jobs[0].direct' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('jobs[0].direct');
    expect(err.accepted).toMatch(/1 or 0/);
  });
});

describe('randseed', () => {
  it('keeps all 64 bits as a bigint', () => {
    expect(parseRandseed('18446744073709551615')).toBe(18446744073709551615n);
    expect(parseRandseed('0xffffffffffffffff')).toBe(18446744073709551615n);
    expect(parseRandseed('0x89')).toBe(137n);
    expect(parseRandseed('42')).toBe(42n);
  });

  it('refuses what does not fit in 64 bits or is not a number', () => {
    expect(errorOf(() => parseRandseed('18446744073709551616')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandseed('-1')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandseed('1k')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandseed('0x')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandseed('ff')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandseed('0x1ffffffffffffffff')).code).toBe('EINVALID_VALUE');
  });

  // Long numbers are refused on their digit count before BigInt reads them (its decimal
  // conversion is super-linear); leading zeros do not count, as BigInt did not count them.
  it('reads leading zeros and refuses a long number however it is written, its message kept short', () => {
    expect(parseRandseed(`${'0'.repeat(4000)}42`)).toBe(42n);
    expect(parseRandseed(`0x${'0'.repeat(4000)}ff`)).toBe(255n);
    expect(parseRandseed('0')).toBe(0n);
    expect(parseRandseed('0x0')).toBe(0n);
    const err = errorOf(() => parseRandseed('1'.repeat(100_000)));
    expect(err.message.length).toBeLessThan(200);
  });
});

describe('decimals', () => {
  it('read fio float forms', () => {
    expect(parseDecimal('99.9', { accepted: '' })).toBe(99.9);
    expect(parseDecimal('1e2', { accepted: '' })).toBe(100);
    expect(parseDecimal('.5', { accepted: '' })).toBe(0.5);
    expect(errorOf(() => parseDecimal('1.2.3', { accepted: 'x' })).accepted).toBe('x');
    expect(parseDecimal('5.', { accepted: '' })).toBe(5);
    expect(parseDecimal('-1.5E-1', { accepted: '' })).toBe(-0.15);
  });

  /*
   * Regression: /^[+-]?(\d+\.?\d*|...)/ split a run of digits between its two digit groups in
   * every way before failing: 20,000 digits and a '!' took 1 s, 100,000 took 20 s (a
   * percentile_list or random_distribution value). Expected: linear time.
   */
  it('refuse a long run of digits with a stray character in linear time', () => {
    const { ms, error } = timed(() => parseDecimal(`${'1'.repeat(30_000)}!`, { field: 'jobs[0].percentile_list', accepted: 'x' }));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].percentile_list' });
  });
});
