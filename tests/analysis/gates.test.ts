/**
 * Gates on an analysis's findings: parsed by name, judged on the document's `volbench.<analysis>`
 * section, refused on a plain run; a job that happens to be called "sweep" keeps its gates.
 */
import { describe, expect, it } from 'vitest';

import { bindAssertions, evaluateAssertions, parseAssertion } from '../../src/gates/index.js';
import { parseSpec } from '../../src/jobspec/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { VolbenchError } from '../../src/errors.js';
import { requires } from '../helpers/requires.js';

requires();

const doc = {
  jobs: [],
  volbench: {
    sweep: { optimum: { value: 16, iops: 50_000, bw_bytes: 2e8, clat_p99_ns: 900_000, clat_mean_ns: 300_000, speedup: 9.5 }, max_iops: 52_000, points: [{}, {}, {}] },
    uniformity: { min_mbps: 120.5, avg_mbps: 150, max_mbps: 180, spread: 1.49, series: new Array(100).fill({}) },
  },
} as unknown as FioJson;

describe('analysis gates', () => {
  it('parse by analysis and metric, numbers plain and latencies as times', () => {
    expect(parseAssertion('sweep.optimal_depth >= 8')).toMatchObject({ analysis: 'sweep', job: 'sweep', metric: 'optimal_depth', op: '>=', wanted: 8 });
    expect(parseAssertion('uniformity.min_mbps >= 100')).toMatchObject({ analysis: 'uniformity', wanted: 100 });
    expect(parseAssertion('sweep.optimal_p99 <= 2ms')).toMatchObject({ wanted: 2_000_000, wantedUnit: 'ms' });
    expect(parseAssertion('rotational.rpm >= 7.2k').wanted).toBe(7200);
    // Not an analysis metric: a job named sweep.
    expect(parseAssertion('sweep.iops >= 1')).toMatchObject({ job: 'sweep', metric: 'iops' });
    expect(parseAssertion('sweep.iops >= 1').analysis).toBeUndefined();
    expect(() => parseAssertion('sweep.optimal_depth >= 8MB/s')).toThrow(/not a number/);
  });

  it('are judged on the analysis section, and fail where it is missing', () => {
    const outcomes = evaluateAssertions(doc, [
      'sweep.optimal_depth >= 8', 'sweep.optimal_p99 <= 500us', 'sweep.points == 3', 'uniformity.min_mbps >= 100',
      'uniformity.chunks == 100', 'rotational.rpm > 0',
    ]);
    expect(outcomes.map((o) => o.passed)).toEqual([true, false, true, true, true, false]);
    expect(outcomes[0]).toMatchObject({ measured: 16, unit: '', dir: null, message: 'measured 16, wanted >= 8' });
    expect(outcomes[1]).toMatchObject({ measured: 900_000, unit: 'ns', message: 'measured 900us, wanted <= 500us' });
    expect(outcomes[5].measured).toBeNull();
    expect(outcomes[5].message).toMatch(/holds no rotational/);
  });

  it('are refused on a plain run before any I/O', () => {
    const spec = parseSpec({ jobs: [{ name: 'rr', rw: 'randread', size: '1m' }] });
    expect(() => bindAssertions(spec, [parseAssertion('sweep.optimal_depth >= 8')])).toThrow(VolbenchError);
    expect(() => bindAssertions(spec, [parseAssertion('sweep.optimal_depth >= 8')])).toThrow(/needs a sweep run/);
  });
});
