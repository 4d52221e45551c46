/**
 * The assertion grammar `<job>[.<dir>].<metric> <op> <value>`: what parses into what, and the
 * errors a malformed assertion gets (naming the assertion and what is accepted).
 */
import { describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { parseAssertion } from '../../src/gates/index.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

requires();

const MiB = 1024 * 1024;

function refusal(expr: string): VolbenchError {
  try {
    parseAssertion(expr);
  } catch (err) {
    expect(err).toBeInstanceOf(VolbenchError);
    return err as VolbenchError;
  }
  throw new Error(`'${expr}' was accepted`);
}

describe('parseAssertion', () => {
  it('reads the job, metric, operator and plain value of an IOPS gate', () => {
    expect(parseAssertion('RND4K-Q32T1-read.iops >= 3000')).toEqual({
      expr: 'RND4K-Q32T1-read.iops >= 3000', job: 'RND4K-Q32T1-read', metric: 'iops', op: '>=', wanted: 3000, wantedUnit: '',
    });
    expect(parseAssertion('x.iops>3k').wanted).toBe(3000);
  });

  it('reads latency percentiles and statistics with time units, plain numbers in ns', () => {
    const p99 = parseAssertion('RND4K-Q1T1-read.clat_ns.p99 <= 2ms');
    expect(p99).toMatchObject({ job: 'RND4K-Q1T1-read', metric: 'clat_ns.p99', op: '<=', wanted: 2_000_000, wantedUnit: 'ms' });
    expect(parseAssertion('j.lat_ns.p99.9 < 500us')).toMatchObject({ metric: 'lat_ns.p99.9', wanted: 500_000 });
    expect(parseAssertion('j.clat_ns.mean < 1s').wanted).toBe(1e9);
    expect(parseAssertion('j.slat_ns.max < 250000').wanted).toBe(250_000);
    expect(parseAssertion('j.clat.p50 < 1.5ms')).toMatchObject({ metric: 'clat_ns.p50', wanted: 1_500_000 });
  });

  it('reads bandwidth with IEC and SI units and sizes for io_bytes', () => {
    expect(parseAssertion('j.write.bw > 500MiB/s')).toMatchObject({ dir: 'write', metric: 'bw', wanted: 500 * MiB });
    expect(parseAssertion('j.bw >= 1GB/s').wanted).toBe(1e9);
    expect(parseAssertion('j.bw >= 200KiB/s').wanted).toBe(200 * 1024);
    expect(parseAssertion('j.io_bytes == 8MiB').wanted).toBe(8 * MiB);
    expect(parseAssertion('j.io_bytes == 1g').wanted).toBe(1024 ** 3);
    expect(parseAssertion('j.io_bytes == 1GB').wanted).toBe(1e9);
    expect(parseAssertion('j.io_bytes != 4096').wanted).toBe(4096);
  });

  it('takes every comparison operator and the error metric', () => {
    for (const op of ['>=', '<=', '>', '<', '==', '!='] as const) expect(parseAssertion(`j.error ${op} 0`).op).toBe(op);
  });

  it('finds the direction and metric from the right, so job names may hold dots', () => {
    expect(parseAssertion('my.job.read.iops >= 1')).toMatchObject({ job: 'my.job', dir: 'read', metric: 'iops' });
    expect(parseAssertion('my.job.clat_ns.p99.99 < 1ms')).toMatchObject({ job: 'my.job', metric: 'clat_ns.p99.99' });
    expect(parseAssertion('j.sync.lat_ns.p99 < 1ms')).toMatchObject({ job: 'j', dir: 'sync', metric: 'lat_ns.p99' });
  });

  it.each([
    ['j.iops 3000', /no comparison operator/],
    ['j.iops >=', /no value after '>='/],
    ['>= 3', /no job and metric/],
    ['j.iops >= 3 < 4', /more than one comparison operator/],
    ['j.foo >= 1', /does not end in a known metric/],
    ['iops >= 1', /names a metric but no job/],
    ['j.clat_ns.p0 < 1ms', /does not end in a known metric/],
    ['j.read.error == 0', /whole-job metric/],
  ])('refuses %s, naming the assertion and the grammar', (expr, why) => {
    const err = refusal(expr);
    expect(err.code).toBe('EINVALID_ARGS');
    expect(err.message).toContain(`assertion '${expr}'`);
    expect(err.message).toMatch(why);
    expect(err.accepted).toContain('<job>[.<dir>].<metric> <op> <value>');
  });

  it.each([
    ['j.bw >= 500', /bandwidth/, /MiB\/s/],
    ['j.clat_ns.p99 <= 2 parsecs', /time/, /ms/],
    ['j.iops >= 5constructor', /count/, /3k/],
    ['j.io_bytes == 1.5xb', /size/, /KiB/],
    ['j.error == 1.5', /errno/, /errno/],
  ])('refuses the value of %s, saying what the metric takes', (expr, what, accepted) => {
    const err = refusal(expr);
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.message).toContain(`assertion '${expr}': `);
    expect(err.message).toMatch(what);
    expect(err.accepted).toMatch(accepted);
  });
});

/*
 * Regression: the operator was found with /^([^<>=!]*?)\s*(>=|...)/, which backtracks
 * quadratically on a run of blanks: 40,000 characters took 0.9 s and a 900 KB assertion kept the
 * service's event loop (and /v1/healthz) stalled for minutes. Expected: an assertion longer than
 * MAX_ASSERTION_LENGTH is refused at once, and shorter ones are read in linear time.
 */
describe('parseAssertion on hostile input', () => {
  it('refuses an assertion longer than 1000 characters at once, naming --assert and the limit', () => {
    const { ms, error } = timed(() => parseAssertion(`a${' '.repeat(40_000)}b`));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error?.code).toBe('EINVALID_ARGS');
    expect(error?.field).toBe('--assert');
    expect(error?.message).toMatch(/40002 characters long, more than 1000/);
    expect(error?.accepted).toMatch(/at most 1000 characters/);
    expect(error!.message.length).toBeLessThan(300);
  });

  it('takes an assertion of exactly 1000 characters', () => {
    const job = 'j'.repeat(1000 - '.iops >= 1'.length);
    expect(parseAssertion(`${job}.iops >= 1`)).toMatchObject({ job, metric: 'iops', wanted: 1 });
  });

  it.each([
    ['blanks between subject and operator', `j.iops${' '.repeat(990)}>= 1`],
    ['blanks without an operator', `a${' '.repeat(990)}b`],
    ['a run of digits and a second word after the operator', `j.iops >= ${'1'.repeat(980)} x y`],
    ['dots in the subject', `${'.'.repeat(990)} >= 1`],
  ])('reads %s within the limit in linear time', (_, expr) => {
    // 3,000 runs of a 1,000-character worst case: over 1e9 steps for a quadratic parser.
    const { ms } = timed(() => {
      for (let i = 0; i < 3000; i++) timed(() => parseAssertion(expr), 1, Infinity);
    }, 3, PARSE_BUDGET_MS * 5);
    expect(ms).toBeLessThan(PARSE_BUDGET_MS * 5);
  });

  it('keeps the grammar: blanks around the operator, two-character operators, a lone = or !', () => {
    expect(parseAssertion('j.iops   >=   3k')).toMatchObject({ job: 'j', op: '>=', wanted: 3000 });
    expect(parseAssertion('j.iops<3')).toMatchObject({ op: '<', wanted: 3 });
    expect(refusal('j.iops = 3').message).toMatch(/no comparison operator/);
    expect(refusal('j.iops ! 3').message).toMatch(/no comparison operator/);
    expect(refusal('j.iops => 3').message).toMatch(/no comparison operator/);
    expect(refusal('j.iops >= 3 ms x').code).toBe('EINVALID_VALUE');
  });
});
