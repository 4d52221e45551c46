/**
 * The output document has one shape, written once: the zod schemas of src/fio-output/fio-result.ts,
 * from which its TypeScript types are inferred and the service's documentation is made. Real
 * documents (a run with a volume and gates, a suite with loops, a sweep) parse under those
 * schemas made strict at every level, so a key the library writes and the schema lacks, or a
 * key the schema requires and a document lacks, fails here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { parseVolume } from '../../src/cloud/index.js';
import { runSweep } from '../../src/analysis/sweep.js';
import { analyseBurst } from '../../src/findings/burst.js';
import { fioResultSchema } from '../../src/fio-output/fio-result.js';
import { runJobs } from '../../src/run/run-jobs.js';
import { runSuite } from '../../src/suites/index.js';
import { fioResultSchema as served } from '../../src/api/fio-result.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

/** `schema` with every object closed: an unknown key is an error, not dropped. */
function strict(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    return z.strictObject(Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, strict(v)])));
  }
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType));
  return schema;
}

const closed = strict(fioResultSchema);

function problems(doc: unknown): string[] {
  const r = closed.safeParse(doc);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe("the output document's schema", () => {
  const scratch = new ScratchDir('doc-schema');
  afterAll(() => scratch.remove());

  it('takes a run with its series, json+ bins, a volume, entitlements, gate outcomes and a burst finding, key for key', async () => {
    const result = await runJobs({
      global: { directory: scratch.dir, size: '4m', ioengine: 'psync', bs: '4k', runtime: '1s', time_based: true },
      jobs: [{ name: 'rr', rw: 'randread' }, { name: 'ww', rw: 'write', stonewall: true }],
    }, { cloud: { volume: parseVolume('gp3:100g:iops=4000') }, assertions: ['rr.iops >= 1', 'ww.error == 0'] });
    expect(result.volbench.cloud?.volume).toMatchObject({ type: 'gp3', iops: 4000 });
    expect(result.volbench.assertions).toHaveLength(2);
    expect(result.volbench.jobs[0].entitlement).toBeDefined();
    expect(problems(result)).toEqual([]);
    // What the service answers: the same document, every key kept.
    expect(served.parse(result)).toEqual(result);
    // A burst finding, held against gp2's model: 3,000 IOPS for 8 s, then 300.
    const series = Array.from({ length: 16 }, (_, i) => ({
      t_ms: (i + 1) * 1000, dur_ms: 1000, read: { iops: i < 8 ? 3000 : 300, bw_bytes: 0, clat_mean_ns: 1, clat_p99_ns: 1 },
    }));
    const burst = analyseBurst({ ...result, volbench: { ...result.volbench, jobs: result.volbench.jobs.map((j) => ({ ...j, series })) } },
      { volume: parseVolume('gp2:100g') });
    expect(burst.volbench.jobs[0].analysis?.burst?.catalog).toBeDefined();
    expect(problems(burst)).toEqual([]);
  });

  it('takes a suite with its loop figures', async () => {
    const result = await runSuite('ars', { directory: scratch.dir, size: '4m', runtime: '1s', loops: 2 });
    expect(result.volbench.suite).toMatchObject({ name: 'ars', loops: 2, runs: 6 });
    expect(result.volbench.jobs[0].loops?.values).toHaveLength(2);
    expect(problems(result)).toEqual([]);
  });

  it('takes a sweep with its curve and optimum', async () => {
    const result = await runSweep({ jobs: [{ name: 'n', ioengine: 'null', rw: 'randread', bs: '4k', size: '64m', runtime: '200ms', time_based: true }] }, { maxDepth: 2 });
    expect(result.volbench.sweep?.points).toHaveLength(2);
    expect(problems(result)).toEqual([]);
  });

  it('refuses a key it does not know, and a required key that is missing, naming where', async () => {
    const result = await runJobs({ jobs: [{ name: 'n', ioengine: 'null', rw: 'read', bs: '4k', size: '1m' }] });
    expect(problems(result)).toEqual([]);
    const extra = { ...result, volbench: { ...result.volbench, jobs: [{ ...result.volbench.jobs[0], novel: 1 }] } };
    expect(problems(extra).join('\n')).toMatch(/^volbench\.jobs\.0: Unrecognized key: "novel"/);
    const { members: _m, ...short } = result.volbench.jobs[0];
    expect(problems({ ...result, volbench: { ...result.volbench, jobs: [short] } }).join('\n')).toMatch(/^volbench\.jobs\.0\.members: /);
  });
});

describe("the EBS statistics contract (NVMe log page 0xD0, read before and after each job)", () => {
  const limits = { volume_iops: 9.1e6, volume_throughput: 0, instance_iops: 0, instance_throughput: 0 };
  const stats = {
    source: 'emulated', device: '/dev/nvme1n1', page: 'ebs', elapsed_us: 10e6,
    exceeded_us: limits, exceeded_share: { ...limits, volume_iops: 0.91 },
    read_ops: 30000, write_ops: 0, read_bytes: 30000 * 4096, write_bytes: 0, read_time_us: 30000 * 600, write_time_us: 0,
    read_io_latency_histogram: [{ lower_us: 512, upper_us: 1024, count: 30000 }], write_io_latency_histogram: [],
  };

  it("takes a job's ebs_stats, the result's ebs_stats_unavailable and an emulated volume's scale, key for key", async () => {
    const result = await runJobs({ jobs: [{ name: 'n', ioengine: 'null', rw: 'randread', bs: '4k', size: '1m' }] });
    const doc = {
      ...result,
      volbench: {
        ...result.volbench,
        jobs: [{ ...result.volbench.jobs[0], ebs_stats: stats }],
        cloud: { provider: 'aws', emulation: { rate: 0.25, time: 0.1 } },
        ebs_stats_unavailable: 'not an NVMe device: /dev/loop7',
      },
    };
    expect(problems(doc)).toEqual([]);
    expect(served.parse(doc)).toEqual(doc);
    const { exceeded_share: _s, ...short } = stats;
    const lacking = { ...doc, volbench: { ...doc.volbench, jobs: [{ ...doc.volbench.jobs[0], ebs_stats: short }] } };
    expect(problems(lacking).join('\n')).toMatch(/^volbench\.jobs\.0\.ebs_stats\.exceeded_share: /);
    const badScale = { ...doc, volbench: { ...doc.volbench, cloud: { provider: 'aws', emulation: { rate: 0, time: 0.1 } } } };
    expect(problems(badScale).join('\n')).toMatch(/^volbench\.cloud\.emulation\.rate: /);
  });
});
