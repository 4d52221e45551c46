/**
 * GET /v1/metrics is Prometheus text that the Prometheus project's parser reads whole, with runs
 * by status, queue depth per target, run durations and the last run's rates, every name under
 * one volbench_ prefix; GET /v1/targets lists every root with the device
 * behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseExposition, type PromFamily, type PromSample } from '../helpers/prometheus.js';
import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { attachLoop, type LoopDevice } from './helpers/loop.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'prometheus');

const MiB = 1024 * 1024;

/** Every sample of the text, as the Prometheus parser read it, with the families. */
function parsePrometheus(text: string): { families: PromFamily[]; samples: PromSample[] } {
  const families = parseExposition(text);
  return { families, samples: families.flatMap((f) => f.samples) };
}

function value(samples: PromSample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const parserSkip = needs.missing('prometheus');

describe.skipIf(parserSkip !== undefined)(`GET /v1/metrics${parserSkip ? `: skipped, ${parserSkip}` : ''}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server?.close());

  it('parses as Prometheus text and counts runs, queue depth, durations and the last rates', async () => {
    const done = await server.client.submit(randreadSpec(), '?wait=30');
    expect(done.body.status).toBe('finished');
    const res = await server.client.get('/v1/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { families, samples } = parsePrometheus(res.text);
    // Every sample line of the text is in what the parser returned: nothing was skipped.
    const sampleLines = res.text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(samples).toHaveLength(sampleLines.length);
    expect(value(samples, 'volbench_runs', { status: 'finished' })).toBe(1);
    expect(value(samples, 'volbench_runs', { status: 'running' })).toBe(0);
    expect(value(samples, 'volbench_queue_depth', { target: server.root })).toBe(0);
    expect(value(samples, 'volbench_run_duration_seconds_count', { status: 'finished' })).toBe(1);
    const iops = value(samples, 'volbench_last_run_iops', { target: server.root, direction: 'read' });
    expect(iops).toBeCloseTo(done.body.result.jobs[0].read.iops, 6);
    expect(value(samples, 'volbench_last_run_bandwidth_bytes', { target: server.root, direction: 'read' })).toBe(done.body.result.jobs[0].read.bw_bytes);
    expect(value(samples, 'volbench_last_run_iops', { target: server.root, direction: 'write' })).toBe(0);
  });

  it('names every metric with one volbench_ prefix: volbench_process_cpu_seconds_total, not volbench_process_process_...', async () => {
    // Regression: prom-client's default metrics got the prefix volbench_process_, which doubled
    // their own process_ (volbench_process_process_cpu_seconds_total). One prefix is expected.
    const { families } = parsePrometheus((await server.client.get('/v1/metrics')).text);
    const names = families.map((f) => f.name);
    expect(names.filter((n) => !n.startsWith('volbench_'))).toEqual([]);
    expect(names.filter((n) => /process_process|nodejs_nodejs|volbench_volbench/.test(n))).toEqual([]);
    expect(families.find((f) => f.name === 'volbench_process_cpu_seconds')?.type).toBe('counter');
    expect(families.find((f) => f.name === 'volbench_nodejs_heap_size_used_bytes')?.type).toBe('gauge');
    expect(families.find((f) => f.name === 'volbench_run_duration_seconds')?.type).toBe('histogram');
    expect(families.flatMap((f) => f.samples).map((s) => s.name)).toContain('volbench_process_cpu_seconds_total');
  });
});

const loopSkip = needs.missing('loop');

describe.skipIf(loopSkip !== undefined)(`GET /v1/targets${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
  let server: TestServer;
  let device: LoopDevice;
  let filesystem: LoopDevice;
  let mountPoint: string;
  beforeAll(async () => {
    device = attachLoop(32 * MiB);
    filesystem = attachLoop(32 * MiB);
    execFileSync('mkfs.ext4', ['-q', '-F', filesystem.device]);
    mountPoint = mkdtempSync(join('/dev/shm', `volbench-api-mnt-${process.pid}-`));
    execFileSync('mount', [filesystem.device, mountPoint]);
    mkdirSync(join(mountPoint, 'bench'));
    server = await startServer({ extraRoots: [join(mountPoint, 'bench'), device.device], allowBlockWrite: [device.device] });
  });
  afterAll(async () => {
    await server?.close();
    if (mountPoint) {
      execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
    filesystem?.release();
    device?.release();
  });

  it('lists each root with its device, filesystem, mount point and free space', async () => {
    const res = await server.client.get('/v1/targets');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/targets', res);
    const [shm, ext4, raw] = res.body.targets;
    expect(shm).toMatchObject({ root: server.root, kind: 'directory', device: null, filesystem: 'tmpfs', mount_point: '/dev/shm', queue: 'mount:/dev/shm' });
    expect(shm.free_bytes).toBeGreaterThan(0);
    const fsName = filesystem.device.replace('/dev/', '');
    expect(ext4).toMatchObject({ kind: 'directory', filesystem: 'ext4', mount_point: mountPoint, queue: `disk:${fsName}`, allow_block_write: false });
    expect(ext4.device).toMatchObject({ name: fsName, size_bytes: 32 * MiB, logical_block_size: 512, ebs_volume_id: null });
    expect(ext4.free_bytes).toBeGreaterThan(0);
    const rawName = device.device.replace('/dev/', '');
    expect(raw).toMatchObject({ root: device.device, kind: 'block_device', allow_block_write: true, filesystem: null, free_bytes: null });
    expect(raw.device).toMatchObject({ name: rawName, size_bytes: 32 * MiB, rotational: expect.any(Boolean) });
  });

  it('counts queued and running runs per root', async () => {
    const running = await server.client.submit(randreadSpec({ runtime: '30s' }));
    await server.client.waitForStatus(running.body.id, 'running');
    const waiting = await server.client.submit(randreadSpec());
    const res = await server.client.get('/v1/targets');
    expect(res.body.targets[0]).toMatchObject({ queued: 1, running: 1 });
    expect(res.body.targets[1]).toMatchObject({ queued: 0, running: 0 });
    if (parserSkip === undefined) {
      const metrics = parsePrometheus((await server.client.get('/v1/metrics')).text).samples;
      expect(value(metrics, 'volbench_queue_depth', { target: server.root })).toBe(1);
      expect(value(metrics, 'volbench_queue_depth', { target: device.device })).toBe(0);
      expect(value(metrics, 'volbench_runs', { status: 'queued' })).toBe(1);
    }
    await server.client.request('DELETE', `/v1/runs/${waiting.body.id}`);
    await server.client.request('DELETE', `/v1/runs/${running.body.id}`);
  });
});
