/**
 * GET /v1/metrics is Prometheus text that parses, with runs by status, queue depth per target,
 * run durations and the last run's rates; GET /v1/targets lists every root with the device
 * behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { assertMatchesOpenApi } from './helpers/openapi.js';
import { attachLoop, loopUnavailableReason, type LoopDevice } from './helpers/loop.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const MiB = 1024 * 1024;

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format: `# HELP`/`# TYPE` lines and `name{label="v",...} value` samples. */
function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) {
      if (line.startsWith('#')) expect(line).toMatch(/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|[+-]Inf)$/.exec(line);
    expect(match, line).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const pair of (match![2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2];
    samples.push({ name: match![1], labels, value: Number(match![3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('GET /v1/metrics', () => {
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
    const samples = parsePrometheus(res.text);
    expect(value(samples, 'volbench_runs', { status: 'finished' })).toBe(1);
    expect(value(samples, 'volbench_runs', { status: 'running' })).toBe(0);
    expect(value(samples, 'volbench_queue_depth', { target: server.root })).toBe(0);
    expect(value(samples, 'volbench_run_duration_seconds_count', { status: 'finished' })).toBe(1);
    const iops = value(samples, 'volbench_last_run_iops', { target: server.root, direction: 'read' });
    expect(iops).toBeCloseTo(done.body.result.jobs[0].read.iops, 6);
    expect(value(samples, 'volbench_last_run_bandwidth_bytes', { target: server.root, direction: 'read' })).toBe(done.body.result.jobs[0].read.bw_bytes);
    expect(value(samples, 'volbench_last_run_iops', { target: server.root, direction: 'write' })).toBe(0);
  });
});

const loopSkip = loopUnavailableReason();

describe.skipIf(loopSkip !== null)(`GET /v1/targets${loopSkip ? `: skipped, ${loopSkip}` : ''}`, () => {
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
    const metrics = parsePrometheus((await server.client.get('/v1/metrics')).text);
    expect(value(metrics, 'volbench_queue_depth', { target: server.root })).toBe(1);
    expect(value(metrics, 'volbench_queue_depth', { target: device.device })).toBe(0);
    expect(value(metrics, 'volbench_runs', { status: 'queued' })).toBe(1);
    await server.client.request('DELETE', `/v1/runs/${waiting.body.id}`);
    await server.client.request('DELETE', `/v1/runs/${running.body.id}`);
  });
});
