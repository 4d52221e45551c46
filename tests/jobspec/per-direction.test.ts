/**
 * Per-direction options (bs, rate, rate_iops, blockalign), bssplit, percentile_list and
 * random_distribution, as fio 3.33 reads them (parse.c handle_option, options.c bssplit_ddir,
 * str_random_distribution_cb, HOWTO `blocksize`).
 */
import { describe, expect, it } from 'vitest';

import {
  parseBsSplit, parsePercentileList, parseRandomDistribution, parseSpec,
} from '../../src/jobspec/index.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

requires();

function job(options: Record<string, string | number | boolean>, global?: Record<string, string>): JobOptions {
  return parseSpec({ ...(global ? { global } : {}), jobs: [{ name: 'j', ...options }] }).jobs[0].options;
}

describe('bs per direction (HOWTO blocksize examples)', () => {
  it.each([
    ['256k', [262144, 262144, 262144]],
    ['8k,32k', [8192, 32768, 32768]],
    ['8k,32k,', [8192, 32768, 4096]],
    [',8k', [4096, 8192, 8192]],
    [',8k,', [4096, 8192, 4096]],
    ['4k,8k,16k', [4096, 8192, 16384]],
    ['4k,,16k', [4096, 4096, 16384]],
    ['8k,', [8192, 4096, 4096]],
  ])('bs=%s gives read,write,trim %j', (text, expected) => {
    expect(job({ bs: text }).bs).toEqual(expected);
  });

  it('an empty slot keeps what [global] set, not the default', () => {
    expect(job({ bs: ',8k' }, { bs: '16k' }).bs).toEqual([16384, 8192, 8192]);
  });

  it('refuses more than three values, zero, and colon or dash separators', () => {
    expect(errorOf(() => job({ bs: '4k,4k,4k,4k' })).code).toBe('EINVALID_VALUE');
    const zero = errorOf(() => job({ bs: '0' }));
    expect(zero.field).toBe('jobs[0].bs');
    expect(zero.accepted).toMatch(/read,write,trim/);
    expect(errorOf(() => job({ bs: '4k:8k' })).message).toMatch(/commas/);
    expect(errorOf(() => job({ bs: '4k-8k' })).message).toMatch(/commas/);
    expect(errorOf(() => job({ bs: ',' })).code).toBe('EINVALID_VALUE');
  });

  it('rate limits reads only with a trailing comma, writes and trims with a leading one', () => {
    expect(job({ rate: '1m,500k' }).rate).toEqual([1048576, 512000, 512000]);
    expect(job({ rate: '500k,' }).rate).toEqual([512000, 0, 0]);
    expect(job({ rate: ',500k' }).rate).toEqual([0, 512000, 512000]);
  });

  it('rate_iops takes whole numbers per direction', () => {
    expect(job({ rate_iops: '2000' }).rate_iops).toEqual([2000, 2000, 2000]);
    expect(job({ rate_iops: 2000 }).rate_iops).toEqual([2000, 2000, 2000]);
    expect(job({ rate_iops: '100,50' }).rate_iops).toEqual([100, 50, 50]);
  });

  it('blockalign (fio name ba) defaults to 0, meaning the block size', () => {
    expect(job({}).blockalign).toEqual([0, 0, 0]);
    expect(job({ ba: '4k' }).blockalign).toEqual([4096, 4096, 4096]);
    expect(job({ blockalign: '512,4k' }).blockalign).toEqual([512, 4096, 4096]);
  });

  it('sizes in per-direction values follow kb_base', () => {
    expect(job({ bs: '4k,8k', kb_base: 1000 }).bs).toEqual([4000, 8000, 8000]);
  });
});

describe('bssplit', () => {
  const field = 'jobs[0].bssplit';

  it('4k/50:64k/30:1m/20 applies to all three directions', () => {
    const split = [{ bs: 4096, pct: 50 }, { bs: 65536, pct: 30 }, { bs: 1048576, pct: 20 }];
    expect(parseBsSplit('4k/50:64k/30:1m/20', undefined, { field })).toEqual([split, split, split]);
  });

  it('entries without a percentage share the remainder equally (HOWTO: 4k/50:1k/:32k/)', () => {
    const [read] = parseBsSplit('4k/50:1k/:32k/', undefined, { field });
    expect(read).toEqual([{ bs: 4096, pct: 50 }, { bs: 1024, pct: 25 }, { bs: 32768, pct: 25 }]);
  });

  it('what integer shares leave over goes to the largest share, so shares add up to 100', () => {
    const [read] = parseBsSplit('4k:8k:16k', undefined, { field });
    expect(read).toEqual([{ bs: 4096, pct: 33 }, { bs: 8192, pct: 33 }, { bs: 16384, pct: 34 }]);
    const [partial] = parseBsSplit('4k/50:8k/30', undefined, { field });
    expect(partial).toEqual([{ bs: 4096, pct: 70 }, { bs: 8192, pct: 30 }]);
  });

  it('a zero percentage counts as not given, as fio reads it', () => {
    const [read] = parseBsSplit('4k/0:8k/50', undefined, { field });
    expect(read).toEqual([{ bs: 4096, pct: 50 }, { bs: 8192, pct: 50 }]);
  });

  it('a single block size gets 100', () => {
    expect(parseBsSplit('4k', undefined, { field })[0]).toEqual([{ bs: 4096, pct: 100 }]);
  });

  it('per direction: a,b gives read a and write and trim b; a,b,c one each', () => {
    const two = parseBsSplit('2k/50:4k/50,4k/90:8k/10', undefined, { field });
    expect(two[0]).toEqual([{ bs: 2048, pct: 50 }, { bs: 4096, pct: 50 }]);
    expect(two[1]).toEqual([{ bs: 4096, pct: 90 }, { bs: 8192, pct: 10 }]);
    expect(two[2]).toEqual(two[1]);
    const three = parseBsSplit('4k,8k,16k', undefined, { field });
    expect(three.map((d) => d[0].bs)).toEqual([4096, 8192, 16384]);
  });

  it('an empty direction keeps no split (it uses bs) or what came before', () => {
    expect(parseBsSplit(',8k/100', undefined, { field })[0]).toEqual([]);
    const before = parseBsSplit('4k', undefined, { field });
    expect(parseBsSplit(',8k', before, { field })[0]).toEqual([{ bs: 4096, pct: 100 }]);
  });

  it('block sizes follow kb_base', () => {
    expect(parseBsSplit('4k', undefined, { field, kbBase: 1000 })[0]).toEqual([{ bs: 4000, pct: 100 }]);
  });

  it.each([
    ['4k/60:8k/60', /more than 100/],
    ['4k/101', /above 100/],
    ['4k/12.5:8k', /whole number/],
    ['4k/50::8k/50', /empty entry/],
    ['0/100', /at least 1/],
    ['4k/50/1', /more than one/],
    ['a,b,c,d', /three/],
    [',', /no block sizes/],
  ])('%s is refused (%s)', (text, message) => {
    const err = errorOf(() => parseBsSplit(text, undefined, { field }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it('a trailing colon ends the list', () => {
    expect(parseBsSplit('4k/50:8k/50:', undefined, { field })[0]).toHaveLength(2);
  });

  it('more than 64 entries are refused', () => {
    const many = Array.from({ length: 65 }, (_, i) => `${i + 1}k`).join(':');
    expect(errorOf(() => parseBsSplit(many, undefined, { field })).message).toMatch(/64/);
  });

  it('fills JobOptions.bssplit through parseSpec', () => {
    expect(job({ bssplit: '4k/50:64k/30:1m/20' }).bssplit?.[1]).toEqual(
      [{ bs: 4096, pct: 50 }, { bs: 65536, pct: 30 }, { bs: 1048576, pct: 20 }]);
    expect(job({}).bssplit).toBeUndefined();
  });
});

describe('percentile_list', () => {
  it('is colon separated and sorted', () => {
    expect(parsePercentileList('99.9:50:99')).toEqual([50, 99, 99.9]);
    expect(parsePercentileList('50:90:99:99.99:99.9999')).toEqual([50, 90, 99, 99.99, 99.9999]);
  });

  it('takes 20 values at most, each in (0, 100]', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => String(i + 1)).join(':');
    expect(parsePercentileList(twenty)).toHaveLength(20);
    const field = 'jobs[0].percentile_list';
    expect(errorOf(() => parsePercentileList(`${twenty}:21`, { field })).message).toMatch(/more than 20/);
    expect(errorOf(() => parsePercentileList('0:50', { field })).field).toBe(field);
    expect(errorOf(() => parsePercentileList('100.1')).accepted).toMatch(/\(0, 100\]/);
    expect(parsePercentileList('100')).toEqual([100]);
    expect(errorOf(() => parsePercentileList('50::90')).code).toBe('EINVALID_VALUE');
  });

  it("defaults to fio's list", () => {
    expect(job({}).percentile_list).toEqual([1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99]);
  });
});

describe('random_distribution', () => {
  it.each([
    ['random', { kind: 'random' }],
    ['zipf:1.2', { kind: 'zipf', theta: 1.2 }],
    ['zipf', { kind: 'zipf', theta: 1.1 }],
    ['pareto:0.3', { kind: 'pareto', h: 0.3 }],
    ['pareto', { kind: 'pareto', h: 0.2 }],
    ['normal:5', { kind: 'normal', sigmaPct: 5 }],
    ['normal', { kind: 'normal', sigmaPct: 0 }],
  ])('%s parses as %j', (text, expected) => {
    expect(parseRandomDistribution(text)).toEqual(expected);
  });

  it('refuses out-of-range parameters as fio does', () => {
    expect(errorOf(() => parseRandomDistribution('zipf:1')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandomDistribution('pareto:1')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandomDistribution('pareto:0')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandomDistribution('normal:100')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandomDistribution('zipf:abc')).code).toBe('EINVALID_VALUE');
    expect(errorOf(() => parseRandomDistribution('random:1')).code).toBe('EINVALID_VALUE');
  });

  it('gauss is not a random_distribution in fio 3.33 (only file_service_type has it)', () => {
    const err = errorOf(() => parseRandomDistribution('gauss:5', { field: 'jobs[0].random_distribution' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.accepted).toMatch(/normal/);
  });

  it('zoned distributions and a distribution center are fio forms volbench does not support yet', () => {
    expect(errorOf(() => parseRandomDistribution('zoned:60/10:40/90')).code).toBe('EUNSUPPORTED_OPTION');
    expect(errorOf(() => parseRandomDistribution('zoned_abs:60/20G:40/100G')).code).toBe('EUNSUPPORTED_OPTION');
    expect(errorOf(() => parseRandomDistribution('zipf:1.2:0.25')).message).toMatch(/not supported by volbench yet/);
  });
});
