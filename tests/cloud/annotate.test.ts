/**
 * `volbench run --volume ... --instance ...`: the result says which volume it measured and, per
 * job, what that volume should deliver at the job's I/O size, measured / entitled, and what
 * bound it: a QD1 job short of io2's entitlement at a latency near io2's unloaded one is bound
 * by latency, with the depth that would reach it; the job's options are read as fio merges
 * them, [global] included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { existsSync } from 'node:fs';

import { parseVolume, runJobs, type Volume } from '../../src/index.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { volbenchError } from '../helpers/run-fixtures.js';

const needs = requires('child');

const dir = mkdtempSync(join(tmpdir(), 'volbench-cloud-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run --volume --instance', () => {
  it('adds volbench.cloud and each job\'s entitlement; QD1 on a disk is latency-bound', async () => {
    const out = await volbench(['run', '--name=qd1', `--filename=${join(dir, 't.bin')}`, '--size=16m', '--rw=randread', '--bs=4k',
      '--ioengine=psync', '--direct=1', '--runtime=1', '--time_based', '--output-format=json',
      '--volume', 'io2:size=200g,iops=64000', '--instance', 'm6i.xlarge']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.cloud).toEqual({ provider: 'aws', instance_type: 'm6i.xlarge', volume: { type: 'io2', size_gib: 200, iops: 64000 } });
    const e = doc.volbench.jobs[0].entitlement;
    expect(e.bs).toBe(4096);
    // The contract's fields, each stated once: entitled (no merging; random I/O never merges, so
    // merged is the same; m6i.xlarge's EBS maximum of 40,000 IOPS binds before the volume's
    // 64,000), measured_vs_entitled against it, the counting, the instance's rate after its burst.
    expect(doc.volbench.schema_version).toBe(3);
    expect(e).not.toHaveProperty('ratio');
    expect(e).not.toHaveProperty('expected_iops');
    expect(e.entitled).toEqual({ iops: 40000, mibps: 156.25, bound_by: 'instance-iops' });
    expect(e.entitled_merged).toEqual(e.entitled);
    expect(e.measured_iops).toBeCloseTo(doc.jobs[0].read.iops, 6);
    expect(e.measured_vs_entitled).toBeCloseTo(e.measured_iops / 40000, 3);
    expect(e).toMatchObject({ counted_io_kib: 256, counted_per_io: 1, bound_by_source: 'model' });
    expect(e.instance_burst).toEqual({ after_s: 1800, iops: 6000, mibps: 23.44, bound_by: 'instance-burst' });
    const latencyUs = doc.jobs[0].read.lat_ns.mean / 1000;
    // Little's law: the I/Os in flight 40,000 IOPS need at the measured latency.
    const needed = (40000 * latencyUs) / 1e6;
    if (e.measured_vs_entitled >= 0.8) expect(e.bound_by).toBe('instance-iops');
    else if (latencyUs <= 2 * 500 && needed > 1) expect(e).toMatchObject({ bound_by: 'latency', depth_needed: Math.ceil(needed) });
    else expect(e.bound_by).toMatch(/^(instance-burst|below-entitlement)$/);
  });

  it('refuses --instance without --volume, and a volume its type does not allow, before any I/O', async () => {
    const alone = await volbench(['run', '--name=x', `--filename=${join(dir, 'x.bin')}`, '--size=1m', '--instance', 'm6i.large']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--instance needs --volume');
    const bad = await volbench(['run', '--name=x', `--filename=${join(dir, 'x.bin')}`, '--size=1m', '--volume', 'gp3:size=10g,iops=20000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/at most 500 IOPS per GiB/);
  });

  it('a suite with --volume: one volbench.cloud, an entitlement per test, judged before the gates', async () => {
    const out = await volbench(['suite', 'aws-ssd', '--directory', dir, '--runtime', '200ms', '--size', '8m', '--loops', '1',
      '--output-format=json', '--volume', 'gp3:size=100g,iops=4000', '--instance', 'm6i.large']);
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout);
    expect(doc.volbench.cloud).toEqual({ provider: 'aws', instance_type: 'm6i.large', volume: { type: 'gp3', size_gib: 100, iops: 4000, throughput_mibps: 125 } });
    expect(doc.volbench.jobs.length).toBeGreaterThan(1);
    for (const [i, vj] of doc.volbench.jobs.entries()) {
      const job = doc.jobs[i];
      const ios = job.read.total_ios + job.write.total_ios;
      expect(vj.entitlement.bs).toBe(Math.round((job.read.io_bytes + job.write.io_bytes) / ios));
      expect(vj.entitlement.entitled.iops).toBeGreaterThan(0);
    }
  });

  it('the library takes the volume as a planning option, and refuses a bad one before any I/O', async () => {
    const file = join(dir, 'lib.bin');
    const spec = { jobs: [{ name: 'w', filename: file, size: '4m', rw: 'write', bs: '1m' }] };
    // Plain figures from JavaScript are checked when the run is planned, as a Volume is when it is made.
    const err = await volbenchError(runJobs(spec, { cloud: { volume: { type: 'st1', sizeGiB: 10 } as unknown as Volume } }));
    expect(err.field).toBe('volume.size');
    expect(existsSync(file)).toBe(false);
    const result = await runJobs(spec, { cloud: { volume: parseVolume('st1:2t') } });
    expect(result.volbench.cloud?.volume).toEqual({ type: 'st1', size_gib: 2048 });
    // 1 MiB sequential writes on st1 count as one 1 MiB I/O each.
    expect(result.volbench.jobs[0].entitlement).toMatchObject({ bs: 1048576, measured_iops: result.jobs[0].write!.iops });
  });

  it("another provider's volume is annotated as that provider's; instance store needs its instance before any I/O", async () => {
    const file = join(dir, 'providers.bin');
    const spec = { jobs: [{ name: 'w', filename: file, size: '4m', rw: 'randwrite', bs: '4k', runtime: '200ms', time_based: 1 }] };
    const bare = await volbenchError(runJobs(spec, { cloud: { volume: parseVolume('instance-store') } }));
    expect(bare.field).toBe('instance');
    const ec2 = await volbenchError(runJobs(spec, { cloud: { volume: parseVolume('pd-ssd:100g'), instance: 'm6i.large' } }));
    expect(ec2.field).toBe('instance');
    expect(existsSync(file)).toBe(false);
    const azure = await runJobs(spec, { cloud: { volume: parseVolume('premium-ssd:100g') } });
    expect(azure.volbench.cloud).toMatchObject({ provider: 'azure', volume: { type: 'premium-ssd', size_gib: 100 } });
    // A P10 starts with a full bucket: 3,500 IOPS.
    expect(azure.volbench.jobs[0].entitlement?.entitled.iops).toBe(3500);
    const store = await runJobs(spec, { cloud: { volume: parseVolume('instance-store'), instance: 'i4i.xlarge' } });
    expect(store.volbench.cloud).toMatchObject({ provider: 'aws', instance_type: 'i4i.xlarge', volume: { type: 'instance-store' } });
    // Random 4 KiB writes on i4i.xlarge's one device: 50,000 IOPS, whatever its EBS limits.
    expect(store.volbench.jobs[0].entitlement?.entitled.iops).toBe(50000);
  });
});
