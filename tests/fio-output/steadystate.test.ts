/**
 * fio's steadystate block and its normal-output line, pinned to fio 3.33's output: sample 11's
 * block rebuilt from its window, and the lines fio printed for the four criteria (with a
 * percentage and an absolute limit) on tmpfs runs.
 */
import { describe, expect, it } from 'vitest';

import type { FioSteadyState } from '../../src/fio-output/fio-result.js';
import { steadyJson, steadyText } from '../../src/fio-output/steadystate.js';
import { requires } from '../helpers/requires.js';
import { sampleJson } from '../jobspec/samples.js';

requires();

const block = (ss: string, attained: 0 | 1, criterion: string, maxDeviation: number, slope: number, bwMean: number, iopsMean: number): FioSteadyState => ({
  ss, duration: 3, attained, criterion, max_deviation: maxDeviation, slope, data: { bw_mean: bwMean, iops_mean: iopsMean, iops: [], bw: [] },
});

describe('steadystate report', () => {
  it("rebuilds sample 11's block from its window", () => {
    const job = sampleJson('11-steadystate-iops5pct.json').jobs[0] as unknown as { steadystate: FioSteadyState };
    const fio = job.steadystate;
    const { iops, bw } = fio.data;
    const mean = iops.reduce((s, v) => s + v, 0) / iops.length;
    const dev = Math.max(...iops.map((v) => Math.abs(v - mean)));
    const ours = steadyJson({
      criterion: { metric: 'iops', slope: false, limit: 5, percent: true },
      durationSec: 3,
      result: { attained: true, criterion: (dev * 100) / mean, maxDeviation: dev, slope: 0, iops, bw },
    });
    expect(ours).toEqual({ ...fio, max_deviation: dev });
    expect(dev).toBeCloseTo(fio.max_deviation, 5);
  });

  it('prints an absolute criterion rounded to a whole number', () => {
    const ours = steadyJson({
      criterion: { metric: 'bw', slope: false, limit: 5e7, percent: false },
      durationSec: 2,
      result: { attained: true, criterion: 15368171.5, maxDeviation: 15368171.5, slope: 0, iops: [1125187, 1132691], bw: [4608765993, 4639502336] },
    });
    expect(ours).toMatchObject({ ss: 'bw:50000000.000000', criterion: '15368172.000000', data: { bw_mean: 4624134164, iops_mean: 1128939 } });
  });

  it.each([
    [block('iops:20.000000%', 1, '0.853146%', 9880, 0, 4743443761, 1158067),
      'attained=yes, bw=4524MiB/s (4632MB/s), iops=1158k, iops mean dev=0.853%'],
    [block('iops_slope:5.000000%', 1, '0.019790%', 0, 226.5, 4687828374, 1144489),
      'attained=yes, bw=4471MiB/s (4578MB/s), iops=1144k, iops slope=0.020%'],
    [block('bw:50000000.000000', 1, '15368172.000000', 15368171.5, 0, 4624134164, 1128939),
      'attained=yes, bw=4410MiB/s (4516MB/s), iops=1129k, bw mean dev=15368171.500'],
    [block('bw_slope:1000000000.000000', 1, '10012785.000000', 0, 10012785, 4762700743, 1162768),
      'attained=yes, bw=4542MiB/s (4651MB/s), iops=1163k, bw slope=10012785.000'],
    [block('iops:0.000000', 0, '0.000000', 0, 0, 409805, 100),
      'attained=no, bw=400KiB/s (400kB/s), iops=100, iops mean dev=0.000'],
  ])('prints fio\'s line for %#', (ss, line) => {
    expect(steadyText(ss)).toBe(`  steadystate  : ${line}\n`);
  });
});
