/**
 * A burst cliff made by the kernel: a run on a loop device (over a file on the disk) whose
 * cgroup blkio throttle is lowered to a quarter half-way through, as a credit bucket running dry
 * lowers a gp2 volume to its baseline. The analysis finds the cliff with both levels at the
 * throttle's caps and its time where the cap was lowered, and --until-baseline, which would run
 * on as long as gp2's bucket lasts, stops there; a run under one cap finds none. Skips
 * where the machine has no loop devices or no throttle (cgroup v1 blkio here, v2 io.max
 * elsewhere).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmdirSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { formatNormal, parseVolume, runJobs } from '../../src/index.js';
import type { FioResult } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { MiB } from '../helpers/run-fixtures.js';
import { TargetFixtures, run } from '../helpers/target-fixtures.js';

const needs = requires('loop', 'blkio');

const BLKIO = '/sys/fs/cgroup/blkio';
const V2 = '/sys/fs/cgroup';

interface Throttle {
  /** Caps reads of the device at `iops` for this process. */
  cap(iops: number): void;
  release(): void;
}

/** Why no throttled loop device can be had here (the throttle of cgroup v1 or v2), or undefined. */
function throttleUnavailableReason(): string | undefined {
  const loop = needs.missing('loop');
  if (loop) return loop;
  if (existsSync(join(BLKIO, 'blkio.throttle.read_iops_device'))) return undefined;
  const v2 = existsSync(join(V2, 'cgroup.controllers')) && readFileSync(join(V2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('io');
  return v2 ? undefined : 'no cgroup I/O throttle (neither v1 blkio.throttle nor v2 io.max)';
}

/** A cgroup of this process whose read IOPS cap on `majMin` can be changed while a run goes. */
function makeThrottle(majMin: string): Throttle {
  const v1 = existsSync(join(BLKIO, 'blkio.throttle.read_iops_device'));
  const root = v1 ? BLKIO : V2;
  const dir = join(root, `volbench-burst-${process.pid}`);
  mkdirSync(dir);
  if (!v1) writeFileSync(join(V2, 'cgroup.subtree_control'), '+io');
  const cap = (iops: number): void => {
    if (v1) writeFileSync(join(dir, 'blkio.throttle.read_iops_device'), `${majMin} ${iops}`);
    else writeFileSync(join(dir, 'io.max'), `${majMin} riops=${iops}`);
  };
  writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  return {
    cap,
    release: () => {
      writeFileSync(join(root, 'cgroup.procs'), String(process.pid));
      rmdirSync(dir);
    },
  };
}

function job(filename: string, runtime: string) {
  // The throttle's first slice after an idle spell lets a burst through: the ramp keeps it out.
  return { jobs: [{ name: 'b', filename, rw: 'randread', bs: '4k', direct: 1, ioengine: 'libaio', iodepth: 8, ramp_time: '200ms', runtime, time_based: 1 }] };
}

/** Wall-clock ms when the job's measured period began: the report is stamped at its end. */
function measuredStartMs(result: FioResult): number {
  return result.timestamp_ms - result.jobs[0].job_runtime;
}

describe.skipIf(throttleUnavailableReason() !== undefined)('burst analysis of a run whose throttle is lowered half-way', () => {
  // On the disk, not in memory: a loop device over tmpfs is bound by the CPU of a shared machine.
  const fixtures = new TargetFixtures('burst', '/var/tmp');
  let device = '';
  let throttle: Throttle | undefined;
  let high = 0;
  let low = 0;

  beforeAll(async () => {
    const backing = fixtures.image('disk.img', 0);
    const fd = openSync(backing, 'w');
    const block = Buffer.alloc(MiB, 0x5a);
    for (let i = 0; i < 32; i++) writeSync(fd, block);
    fsyncSync(fd);
    closeSync(fd);
    device = run('losetup', ['-f', '--show', '--direct-io=on', backing]);
    // Caps well under what the device does unthrottled, so the throttle alone sets the levels.
    const free = await runJobs(job(device, '300ms'));
    high = Math.max(40, Math.min(800, Math.round(free.jobs[0].read!.iops / 3)));
    low = Math.round(high / 4);
    throttle = makeThrottle(run('lsblk', ['-dno', 'MAJ:MIN', device]).trim());
  });

  afterAll(() => {
    throttle?.release();
    if (device) run('losetup', ['-d', device]);
    fixtures.release();
  });

  it('finds the cliff at the moment the cap fell, with both caps as its levels; --until-baseline stops there', async () => {
    throttle!.cap(high);
    let loweredAtMs = 0;
    // The engine runs in its own threads: this timer fires on time while the run goes.
    const timer = setTimeout(() => {
      throttle!.cap(low);
      loweredAtMs = Date.now();
    }, 3700);
    // gp2 100 GiB's full bucket lasts 2,000 s: the run would go on to --max-runtime, 30 s, but
    // stops once the cliff and a few seconds after it show.
    const result = await runJobs(job(device, '1s'), { untilBaseline: { volume: parseVolume('gp2:size=100g') }, limits: { maxRuntimeSec: 30 } });
    clearTimeout(timer);
    expect(loweredAtMs).toBeGreaterThan(0);
    const burst = result.volbench.jobs[0].analysis!.burst!;
    const loweredAtS = (loweredAtMs - measuredStartMs(result)) / 1000;
    expect(burst.cliff, burst.message).toBe(true);
    expect(burst.unit).toBe('IOPS');
    expect(burst.points).toBeGreaterThanOrEqual(6);
    // The throttle dispatches on a timer and lets a second some way over its cap now and then.
    expect(burst.level_before).toBeGreaterThan(0.75 * high);
    expect(burst.level_before).toBeLessThan(1.3 * high);
    expect(burst.level_after).toBeGreaterThan(0.75 * low);
    expect(burst.level_after).toBeLessThan(1.3 * low);
    expect(Math.abs(burst.cliff_at_s! - loweredAtS), `cliff at ${burst.cliff_at_s} s, cap lowered at ${loweredAtS} s`).toBeLessThan(0.75);
    // The credits: the work above the level after, up to the cliff.
    expect(burst.credits).toBeCloseTo((burst.level_before! - burst.level_after!) * burst.cliff_at_s!, -2);
    // Held against gp2 100 GiB: a few thousand credits are not its 5.4 M bucket.
    expect(burst.catalog).toMatchObject({ volume: 'gp2 100 GiB', bucket: 5400000, matches: false });
    expect(burst.never_left_burst).toBe(false);
    expect(formatNormal(result)).toContain(`  burst        : ${burst.message}\n`);
    // Stopped by the cliff, well before 30 s, and not cancelled.
    const vj = result.volbench.jobs[0];
    expect(result.jobs[0]['job options']).toMatchObject({ time_based: '1', runtime: '29s' });
    expect(result.jobs[0].job_runtime).toBeLessThan(15_000);
    expect(vj.cancelled).toBe(false);
    expect(vj.notes?.join('\n')).toMatch(/stopped \d+ s in, after the burst cliff at [\d.]+ s and the level after it \(--until-baseline\)/);
  }, 40_000);

  it('finds none in a run under one cap', async () => {
    throttle!.cap(low);
    const result = await runJobs(job(device, '6s'));
    const burst = result.volbench.jobs[0].analysis!.burst!;
    expect(burst.points).toBeGreaterThanOrEqual(6);
    expect(burst.cliff, burst.message).toBe(false);
    // Under a loaded machine the engine may fall a little short of the cap.
    expect(burst.level).toBeGreaterThan(0.6 * low);
    expect(burst.level).toBeLessThan(1.3 * low);
    expect(burst.cliff_at_s).toBeUndefined();
    expect(formatNormal(result)).not.toContain('burst        :');
  }, 20_000);
});
