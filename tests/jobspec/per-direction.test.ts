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
import { blockSizes, bsRanges } from '../../src/plan/block-sizes.js';
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

  it('zoned_abs and a distribution center are fio forms volbench does not support yet', () => {
    expect(errorOf(() => parseRandomDistribution('zoned_abs:60/20G:40/100G')).code).toBe('EUNSUPPORTED_OPTION');
    expect(errorOf(() => parseRandomDistribution('zipf:1.2:0.25')).message).toMatch(/not supported by volbench yet/);
  });
});

describe('zoned random distributions', () => {
  it('zoned: fio\'s zones, the same for every direction', () => {
    const d = parseRandomDistribution('zoned:60/10:30/20:10/70');
    expect(d).toEqual({ kind: 'zoned', zones: [0, 1, 2].map(() => [{ access: 60, size: 10 }, { access: 30, size: 20 }, { access: 10, size: 70 }]) });
  });

  it('a zone without a size shares what the others leave, rounded down, as fio', () => {
    const d = parseRandomDistribution('zoned:50/10:25:25');
    expect(d.kind === 'zoned' && d.zones[0]).toEqual([{ access: 50, size: 10 }, { access: 25, size: 45 }, { access: 25, size: 45 }]);
  });

  it.each([
    ['zoned:60/10:30/20', /add up to 90, not 100/],
    ['zoned:60/60:40/60', /more than 100/],
    ['zoned:101/10', /above 100/],
    ['zoned:x/10:100/90', /whole percentage/],
    ['zoned:', /no zones/],
    // fio 3.33 refuses any comma here: its option matcher stops the word at the first ','.
    ['zoned:60/10:40/90,100/100', /as fio 3.33 refuses them/],
  ])('%s is refused (%s)', (text, why) => {
    const err = errorOf(() => parseRandomDistribution(text, { field: 'jobs[0].random_distribution' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('jobs[0].random_distribution');
    expect(err.message).toMatch(why);
    expect(err.accepted).toMatch(/zoned:A\/S/);
  });
});

describe('bsrange', () => {
  const one = (options: Record<string, string>): JobOptions => parseSpec({ jobs: [{ name: 'j', ...options }] }).jobs[0].options;

  it('MIN-MAX or MIN:MAX for every direction, the smaller first however written, as fio', () => {
    expect(one({ bsrange: '4k-64k' }).bsrange).toEqual([[4096, 65536], [4096, 65536], [4096, 65536]]);
    expect(one({ bsrange: '64k:4k' }).bsrange).toEqual([[4096, 65536], [4096, 65536], [4096, 65536]]);
    expect(one({ blocksize_range: '1k-4k,8k-16k' }).bsrange).toEqual([[1024, 4096], [8192, 16384], [8192, 16384]]);
  });

  it('the engine gets the range\'s ends and draws between them; bssplit wins where both are given', () => {
    expect(blockSizes(one({ bsrange: '4k-64k' }))[0]).toEqual([{ bs: 4096, pct: 100 }, { bs: 65536, pct: 0 }]);
    expect(bsRanges(one({ bsrange: '4k-64k' }))).toEqual([1, 1, 1]);
    expect(bsRanges(one({ bsrange: '4k-4k' }))).toEqual([0, 0, 0]);
    expect(blockSizes(one({ bsrange: '8k-8k', bs: '4k' }))[0]).toEqual([{ bs: 8192, pct: 100 }]);
    const both = one({ bsrange: '4k-64k', bssplit: '4k/50:8k/50' });
    expect(bsRanges(both)).toEqual([0, 0, 0]);
    expect(blockSizes(both)[0]).toEqual([{ bs: 4096, pct: 50 }, { bs: 8192, pct: 50 }]);
  });

  it.each([['4k'], ['0-4k'], ['4k-x'], ['4k-8g']])('bsrange=%s is refused naming the field', (value) => {
    const err = errorOf(() => one({ bsrange: value }));
    expect(err).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bsrange' });
    expect(err.accepted).toMatch(/MIN-MAX/);
  });

  it('bs_unaligned stays refused, with what volbench takes', () => {
    const err = errorOf(() => one({ bs_unaligned: '1' }));
    expect(err).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].bs_unaligned' });
    expect(err.accepted).toMatch(/bsrange/);
  });
});

describe('percentage_random, rate_process, latency_target, verify=md5', () => {
  const one = (options: Record<string, string>): JobOptions => parseSpec({ jobs: [{ name: 'j', ...options }] }).jobs[0].options;

  it('percentage_random per direction, 0 to 100 (fio\'s default 100,100,100)', () => {
    expect(one({}).percentage_random).toEqual([100, 100, 100]);
    expect(one({ percentage_random: '70,40' }).percentage_random).toEqual([70, 40, 40]);
    expect(errorOf(() => one({ percentage_random: '101' }))).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].percentage_random' });
  });

  it('rate_process is linear or poisson', () => {
    expect(one({}).rate_process).toBe('linear');
    expect(one({ rate_process: 'poisson' }).rate_process).toBe('poisson');
    expect(errorOf(() => one({ rate_process: 'burst' })).accepted).toMatch(/linear, poisson/);
  });

  it('latency_target and latency_window in µs unless a unit says otherwise; latency_percentile 0 to 100', () => {
    const o = one({ latency_target: '500', latency_window: '2s', latency_percentile: '99.5' });
    expect([o.latency_target_ns, o.latency_window_ns, o.latency_percentile]).toEqual([500_000, 2e9, 99.5]);
    expect(one({}).latency_percentile).toBe(100);
    expect(errorOf(() => one({ latency_percentile: '101' }))).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].latency_percentile' });
    expect(errorOf(() => one({ latency_run: '1' }))).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].latency_run' });
  });

  it('verify=md5 is taken; sha*, xxhash and verify_pattern stay refused with what is accepted', () => {
    expect(one({ verify: 'md5' }).verify).toBe('md5');
    for (const v of ['sha1', 'sha256', 'xxhash']) {
      const err = errorOf(() => one({ verify: v }));
      expect(err).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'jobs[0].verify' });
      expect(err.accepted).toMatch(/md5/);
    }
    expect(errorOf(() => one({ verify_pattern: '0xff' })).accepted).toMatch(/verify/);
    expect(errorOf(() => one({ rw: 'trimwrite' })).accepted).toMatch(/randrw/);
  });
});
