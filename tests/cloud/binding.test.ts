/**
 * What bound a job. Broke: `latency` held by definition whenever a test fell short (ratio under
 * 0.8 and IOPS × latency over the depth is, with the queue full, the shortfall alone): a gp3
 * 3,000 held to 1,200 with 16 in flight read "latency, 40 in flight needed", st1 after the
 * instance's burst "52 needed", and the depth and rw were read from the job's own section only
 * (aws-hdd's depth read 1; an instance store randwrite in [global] was entitled as a read).
 * Expected: latency only near the type's unloaded latency with too few I/Os in flight; otherwise
 * the limit measured, else the one the model explains, else "below entitlement".
 */
import { describe, expect, it } from 'vitest';

import {
  bindingOf, cloudFacts, entitlement, jobShape, modelBinding, parseVolume, scaleEntitlement, type BindingFacts, type JobShape,
} from '../../src/cloud/index.js';
import type { VolbenchEbsStats } from '../../src/fio-output/index.js';
import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { fixture } from '../publish/helpers.js';

requires();

const KiB = 1024;
const MiB = 1024 * KiB;

/** A job that kept `depth` I/Os in flight and completed `iops` a second: its latency is Little's law's. */
function queued(iops: number, depth: number, bs: number, rw = 'randread'): JobShape {
  return {
    rw, direction: 'read', sequential: rw === 'read', rwmixread: 50, depth, bs,
    read: { ios: iops * 60, bytes: iops * 60 * bs, iops, bwBytes: iops * bs, bs },
    measuredIops: iops, measuredBwBytes: iops * bs, latencyNs: (depth / iops) * 1e9,
  };
}

function stats(shares: Partial<VolbenchEbsStats['exceeded_share']>): VolbenchEbsStats {
  const share = { volume_iops: 0, volume_throughput: 0, instance_iops: 0, instance_throughput: 0, ...shares };
  const us = Object.fromEntries(Object.entries(share).map(([k, v]) => [k, v * 60e6])) as VolbenchEbsStats['exceeded_us'];
  return {
    source: 'nvme', device: '/dev/nvme1n1', page: 'ebs', elapsed_us: 60e6, exceeded_us: us, exceeded_share: share,
    read_ops: 72000, write_ops: 0, read_bytes: 72000 * 16384, write_bytes: 0, read_time_us: 72000 * 13000, write_time_us: 0,
    read_io_latency_histogram: [{ lower_us: 8192, upper_us: 16384, count: 72000 }], write_io_latency_histogram: [],
  };
}

describe('latency-bound only when it is', () => {
  const gp3 = parseVolume('gp3:500g');
  const facts = (job: JobShape, extra: Partial<BindingFacts> = {}): BindingFacts => ({
    entitlement: entitlement(gp3, { bs: job.bs }), job, unloadedUs: gp3.catalog.latency!.unloaded_us, ...extra,
  });

  it('gp3 3,000 held to 1,200 with 16 in flight: not latency (13 ms is no unloaded latency); below entitlement, cause not measured', () => {
    const job = queued(1200, 16, 16 * KiB);
    expect(job.latencyNs / 1e6).toBeCloseTo(13.3, 1);
    expect(modelBinding(facts(job))).toEqual({ bound_by: 'below-entitlement' });
    expect(bindingOf(facts(job))).toEqual({ bound_by: 'below-entitlement', bound_by_source: 'model' });
  });

  it('the same job on a volume whose statistics say its IOPS limit was exceeded 97% of the time: volume-iops, measured', () => {
    const job = queued(1200, 16, 16 * KiB);
    expect(bindingOf(facts(job, { ebs: stats({ volume_iops: 0.97 }) }))).toEqual({
      bound_by: 'volume-iops', bound_by_source: 'ebs-stats', bound_by_model: 'below-entitlement',
    });
    // A page that shows no limit held the job leaves the model's answer, as the model's.
    expect(bindingOf(facts(job, { ebs: stats({ volume_iops: 0.02 }) }))).toEqual({ bound_by: 'below-entitlement', bound_by_source: 'model' });
  });

  it('QD1 at 600 µs on gp3: near its unloaded latency, too few in flight for 3,000 IOPS: latency, 2 needed', () => {
    const job = queued(1 / 0.0006, 1, 16 * KiB);
    expect(modelBinding(facts(job))).toEqual({ bound_by: 'latency', depth_needed: 2 });
  });

  it('at its entitlement a job met the model\'s limit, however deep its queue', () => {
    expect(bindingOf(facts(queued(2950, 32, 16 * KiB)))).toEqual({ bound_by: 'volume-iops', bound_by_source: 'model' });
  });

  it('st1 2 TiB on m6i.large after the instance\'s burst, 8 in flight: instance-burst, not latency', () => {
    const st1 = parseVolume('st1:2t');
    const e = entitlement(st1, { bs: MiB, sequential: true, instance: 'm6i.large' });
    expect(e.entitled).toEqual({ iops: 500, mibps: 500, bound_by: 'volume-throughput' });
    // 650 Mbps: 81.25 MB/s, 77.49 one-MiB I/Os a second.
    expect(e.instance_burst?.iops).toBeCloseTo(81.25e6 / MiB, 2);
    const job = queued(77, 8, MiB, 'read');
    expect(modelBinding({ entitlement: e, job, unloadedUs: st1.catalog.latency!.unloaded_us })).toEqual({ bound_by: 'instance-burst' });
  });

  it("gp2 with its bucket spent: burst-credits; a job's own rate_iops under the entitlement: job-rate", () => {
    const gp2 = parseVolume('gp2:100g');
    const q = { bs: 4 * KiB };
    const job = queued(300, 32, 4 * KiB);
    const empty = entitlement(gp2, { ...q, burstBalance: 0 }).entitled;
    expect(modelBinding({ entitlement: entitlement(gp2, q), emptyBucket: empty, job })).toEqual({ bound_by: 'burst-credits' });
    const capped = { ...queued(1500, 16, 4 * KiB), askedIops: 1500 };
    expect(modelBinding(facts(capped))).toEqual({ bound_by: 'job-rate' });
  });

  it('an emulated volume is judged against the entitlement it was held to', () => {
    const job = queued(740, 16, 16 * KiB);
    const held = scaleEntitlement(entitlement(gp3, { bs: 16 * KiB }), { rate: 0.25, time: 0.1 });
    expect(held.entitled.iops).toBe(750);
    expect(modelBinding({ entitlement: held, job })).toEqual({ bound_by: 'volume-iops' });
  });
});

describe("a job's options as fio merges them", () => {
  it("aws-hdd's iodepth=8 in [global] is the depth; aws-ssd's psync keeps one I/O per job in flight", () => {
    const hdd = fixture('aws-hdd-shm.json');
    expect(hdd.jobs[0]['job options']?.iodepth).toBeUndefined();
    expect(jobShape(hdd, 0)).toMatchObject({ rw: 'read', sequential: true, depth: 8 });
    const ssd = fixture('aws-ssd-vol-a.json');
    expect(jobShape(ssd, 0)).toMatchObject({ rw: 'randwrite', direction: 'write', depth: 16 });
  });

  it('an instance store randwrite in [global] is entitled as a write: 50,000, not 62,500', async () => {
    const result = await runJobs({ global: { ioengine: 'null', rw: 'randwrite', bs: '4k', size: '64m' }, jobs: [{ name: 'w' }] });
    expect(result['global options']?.rw).toBe('randwrite');
    const doc = cloudFacts(result, { volume: parseVolume('instance-store'), instance: 'i4i.xlarge' });
    expect(doc.volbench.jobs[0].entitlement?.entitled.iops).toBe(50000);
  });
});
