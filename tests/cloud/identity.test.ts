/**
 * The volume behind a run, recognised: a local server speaking IMDSv2's token protocol stands in
 * for the instance metadata service, and moto server (a local AWS API emulator) for EC2, holding
 * a volume made with CreateVolume. No EBS NVMe device exists here, so the volume id is given to
 * the lookup (`volumeIdsOf`), in place of the one the target's NVMe serial would give.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CreateVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';

import { forgetInstanceIdentity, instanceIdentity, parseVolume, recogniseVolume } from '../../src/cloud/index.js';
import { cloudForRun } from '../../src/cli/cloud-lookup.js';
import { runCommand, type CommandIo } from '../../src/cli/run-command.js';
import { VolbenchError } from '../../src/errors.js';
import { freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';
import { lowestWhileOver } from '../helpers/timing.js';

const needs = requires('tmpfs', 'moto');

interface FakeImds {
  endpoint: string;
  requests: string[];
  close(): Promise<void>;
}

/** IMDSv2 as EC2 answers it: a token only for a PUT with a TTL header, reads only with the token. */
async function startImds(meta: Record<string, string>): Promise<FakeImds> {
  const token = 'AQAEAFake-token==';
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === '/latest/api/token') {
      const ttl = Number(req.headers['x-aws-ec2-metadata-token-ttl-seconds']);
      if (req.method !== 'PUT' || !(ttl >= 1 && ttl <= 21600)) return void res.writeHead(400).end();
      return void res.writeHead(200, { 'x-aws-ec2-metadata-token-ttl-seconds': String(ttl) }).end(token);
    }
    if (req.headers['x-aws-ec2-metadata-token'] !== token) return void res.writeHead(401).end();
    const value = meta[(req.url ?? '').replace('/latest/meta-data/', '')];
    if (req.method !== 'GET' || value === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(value);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { endpoint: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

/** A port nothing listens on: the connection is refused. */
async function closedPort(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

/** A server that takes the connection and never answers: the worst case for the 1 s budget. */
async function silentServer(): Promise<{ endpoint: string; requests(): number; close(): Promise<void> }> {
  let requests = 0;
  const s = createServer(() => { requests++; /* never answers */ });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); }),
  };
}

/** How long `fn` took, in ms of the clock. */
async function took(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function captureIo(): { io: CommandIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) => new Writable({ write(chunk, _enc, cb) { add(String(chunk)); cb(); } }) as unknown as NodeJS.WriteStream;
  return { io: { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)) }, out: () => out, err: () => err };
}

const META = { 'instance-type': 'm6i.large', 'placement/region': 'us-east-1', 'placement/availability-zone': 'us-east-1a', 'instance-id': 'i-0abc123def4567890' };

describe('the instance metadata service (IMDSv2)', () => {
  beforeEach(() => forgetInstanceIdentity());

  it('asks for a token with a TTL, then reads the identity with it, once per process', async () => {
    const imds = await startImds(META);
    try {
      const first = await instanceIdentity({ endpoint: imds.endpoint });
      expect(first).toEqual({ ok: true, value: { instanceId: 'i-0abc123def4567890', instanceType: 'm6i.large', region: 'us-east-1', availabilityZone: 'us-east-1a' } });
      expect(imds.requests[0]).toBe('PUT /latest/api/token');
      expect(imds.requests.slice(1).sort()).toEqual(['GET /latest/meta-data/instance-id', 'GET /latest/meta-data/instance-type',
        'GET /latest/meta-data/placement/availability-zone', 'GET /latest/meta-data/placement/region']);
      await instanceIdentity({ endpoint: imds.endpoint });
      expect(imds.requests).toHaveLength(5);
    } finally {
      await imds.close();
    }
  });

  it('unreachable: a reason, within the 1 s budget, whether refused or silent', async () => {
    // The budget is a timer's: measured again while over its bound (tests/helpers/timing.ts), as a
    // loaded machine can hold a timer back; without a budget every measurement hangs.
    const refused = await closedPort();
    const refusedTook = await lowestWhileOver(() => took(async () => {
      forgetInstanceIdentity();
      expect((await instanceIdentity({ endpoint: refused })).ok).toBe(false);
    }), (ms) => ms, 1500);
    expect(refusedTook).toBeLessThan(1500);
    const silent = await silentServer();
    try {
      const silentTook = await lowestWhileOver(() => took(async () => {
        forgetInstanceIdentity();
        const b = await instanceIdentity({ endpoint: silent.endpoint });
        expect(b).toEqual({ ok: false, reason: expect.stringContaining('no answer within 1000 ms') });
      }), (ms) => ms, 1500);
      expect(silentTook).toBeLessThan(1500);
      // Asked once: the answer is kept, and the service is not asked again.
      const asked = silent.requests();
      expect(asked).toBeGreaterThan(0);
      expect(await instanceIdentity({ endpoint: silent.endpoint })).toEqual({ ok: false, reason: expect.stringContaining('no answer within 1000 ms') });
      expect(silent.requests()).toBe(asked);
    } finally {
      await silent.close();
    }
  });

  it('AWS_EC2_METADATA_DISABLED=true: not asked at all', async () => {
    const imds = await startImds(META);
    try {
      const r = await instanceIdentity({ env: { AWS_EC2_METADATA_DISABLED: 'true', AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.endpoint } });
      expect(r).toEqual({ ok: false, reason: expect.stringContaining('AWS_EC2_METADATA_DISABLED') });
      expect(imds.requests).toEqual([]);
    } finally {
      await imds.close();
    }
  });
});

const reason = needs.missing('moto');

describe.skipIf(reason !== undefined)(`the volume from DescribeVolumes (moto)${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let imds: FakeImds;
  let volumeId: string;
  let gp2Id: string;
  const saved = { ...process.env };
  const dir = mkdtempSync('/dev/shm/volbench-identity-');

  beforeAll(async () => {
    moto = await freshMoto('us-east-1');
    imds = await startImds(META);
    // The SDK reads its endpoint and credentials from the environment, as on a user's machine.
    Object.assign(process.env, moto.env, { AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.endpoint });
    delete process.env.AWS_PROFILE;
    const ec2 = new EC2Client({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    const v = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 500, VolumeType: 'gp3', Iops: 6000, Throughput: 250 }));
    const g = await ec2.send(new CreateVolumeCommand({ AvailabilityZone: 'us-east-1a', Size: 100, VolumeType: 'gp2' }));
    ec2.destroy();
    volumeId = v.VolumeId!;
    gp2Id = g.VolumeId!;
  });

  afterAll(async () => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    await imds?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => forgetInstanceIdentity());

  it('recognises the volume: type, size, IOPS and throughput, in the region IMDS says', async () => {
    const r = await recogniseVolume({ volumeId });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.region).toBe('us-east-1');
    expect(r.value.availabilityZone).toBe('us-east-1a');
    expect(r.value.instance?.instanceType).toBe('m6i.large');
    expect(r.value.volume).toMatchObject({ id: volumeId, type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBps: 250 });
    expect(r.value.spec).toEqual({ type: 'gp3', sizeGiB: 500, iops: 6000, throughputMiBps: 250 });
  });

  it("gp2's reported IOPS are its size's baseline, not a setting: the spec leaves them out", async () => {
    const r = await recogniseVolume({ volumeId: gp2Id });
    expect(r.ok && r.value.spec).toEqual({ type: 'gp2', sizeGiB: 100 });
  });

  it('a run on the volume: volbench.cloud and each job\'s entitlement, from AWS alone', async () => {
    const cap = captureIo();
    const code = await runCommand(['--name=r', `--filename=${join(dir, 'r.bin')}`, '--size=4m', '--rw=randread', '--bs=4k', '--ioengine=psync',
      '--io_size=1m', '--output-format=json'], cap.io, { volumeIdsOf: async () => [volumeId] });
    expect(code, cap.err()).toBe(0);
    const doc = JSON.parse(cap.out());
    expect(doc.volbench.cloud).toMatchObject({
      provider: 'aws', region: 'us-east-1', availability_zone: 'us-east-1a', instance_type: 'm6i.large',
      volume: { id: volumeId, type: 'gp3', size_gib: 500, iops: 6000, throughput_mibps: 250 },
    });
    // Priced in its region: 500 × $0.08 + 3,000 × $0.005 + 125 × $0.04 (the shipped us-east-1 prices).
    // A volume's month, on AWS's 730 h, with the price's confidence.
    expect(doc.volbench.cloud.price).toEqual({
      usd_per_month: 60, as_of: '2026-11-22', source: 'https://aws.amazon.com/ebs/pricing/', confidence: 'H',
      cost_scope: 'volume', basis: { kind: '730h', hours_per_month: 730 },
    });
    const e = doc.volbench.jobs[0].entitlement;
    expect(e.bs).toBe(4096);
    // gp3 at 6000 IOPS; m6i.large's EBS maximum (20,000 IOPS) is above it.
    expect(e.entitled.iops).toBe(6000);
    expect(cap.err()).not.toContain('cloud lookup');
  });

  it('a run priced from a prices file (VOLBENCH_PRICES) over 180 days old: its price, and a warning naming its date', async () => {
    const file = join(dir, 'old-prices.json');
    const old = { storage_gb_month: 0.1, iops_month: 0.01, throughput_mibps_month: 0.05, source: 'https://api.pricing.us-east-1.amazonaws.com/', as_of: '2025-02-01' };
    writeFileSync(file, JSON.stringify({ provider: 'aws', service: 'ebs', as_of: '2025-02-01', source: old.source, prices: { gp3: { 'us-east-1': old } } }));
    process.env.VOLBENCH_PRICES = file;
    try {
      const cap = captureIo();
      const code = await runCommand(['--name=o', `--filename=${join(dir, 'o.bin')}`, '--size=1m', '--rw=read', '--bs=64k', '--ioengine=psync',
        '--output-format=json'], cap.io, { volumeIdsOf: async () => [volumeId] });
      expect(code, cap.err()).toBe(0);
      // 500 × 0.1 + 3,000 × 0.01 + 125 × 0.05
      expect(JSON.parse(cap.out()).volbench.cloud.price).toMatchObject({ usd_per_month: 86.25, as_of: '2025-02-01', source: old.source, cost_scope: 'volume' });
      expect(cap.err()).toMatch(/volbench: warning: prices as of 2025-02-01 are \d+ days old \(over 180\)/);
    } finally {
      delete process.env.VOLBENCH_PRICES;
    }
  });

  it('a --volume that contradicts AWS is refused before any I/O, naming what AWS reports', async () => {
    const warn: string[] = [];
    const err = await cloudForRun(['/x'], { volume: parseVolume('gp3:size=100g') }, (l) => warn.push(l), { volumeIdsOf: async () => [volumeId] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VolbenchError);
    expect(err).toMatchObject({ code: 'EINVALID_VALUE', field: '--volume' });
    expect((err as Error).message).toMatch(new RegExp(`--volume says gp3 100 GiB, but AWS reports ${volumeId} as gp3 500 GiB, 6000 IOPS`));
    // What the flag does not state is not a contradiction: gp3:size=500g claims no IOPS.
    const ok = await cloudForRun(['/x'], { volume: parseVolume('gp3:size=500g') }, (l) => warn.push(l), { volumeIdsOf: async () => [volumeId] });
    expect(ok?.volume).toMatchObject({ type: 'gp3', sizeGiB: 500, iops: 6000 });
    const iops = await cloudForRun(['/x'], { volume: parseVolume('gp3:size=500g:iops=3000') }, () => {}, { volumeIdsOf: async () => [volumeId] }).catch((e: unknown) => e);
    expect(iops).toMatchObject({ code: 'EINVALID_VALUE', field: '--volume' });
    const inst = await cloudForRun(['/x'], { instance: 'm6i.xlarge' }, () => {}, { volumeIdsOf: async () => [volumeId] }).catch((e: unknown) => e);
    expect(inst).toMatchObject({ code: 'EINVALID_VALUE', field: '--instance' });
    expect(warn).toEqual([]);
  });

  it('IMDS unreachable and no region: one warning, within ~1 s, and the run goes on with the flags alone', async () => {
    const refused = await closedPort();
    const silent = await silentServer();
    try {
      for (const endpoint of [refused, silent.endpoint]) {
        let warn: string[] = [];
        let ctx: Awaited<ReturnType<typeof cloudForRun>> | undefined;
        const ms = await lowestWhileOver(() => took(async () => {
          forgetInstanceIdentity();
          warn = [];
          ctx = await cloudForRun(['/x'], { volume: parseVolume('gp3:size=10g') }, (l) => warn.push(l), {
            volumeIdsOf: async () => [volumeId], env: { AWS_EC2_METADATA_SERVICE_ENDPOINT: endpoint },
          });
        }), (t) => t, 1500);
        expect(ms).toBeLessThan(1500);
        expect(warn).toHaveLength(1);
        expect(warn[0]).toMatch(/cloud lookup of vol-\w+ skipped: the instance metadata service .* did not answer/);
        expect(ctx).toEqual({ volume: { type: 'gp3', sizeGiB: 10 }, instance: undefined });
      }
    } finally {
      await silent.close();
    }
  });

  it('no credentials: one warning naming them, no failure', async () => {
    const keep = { ...process.env };
    try {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'none');
      process.env.AWS_CONFIG_FILE = join(dir, 'none');
      const warn: string[] = [];
      const ctx = await cloudForRun(['/x'], {}, (l) => warn.push(l), { volumeIdsOf: async () => [volumeId] });
      expect(ctx).toBeUndefined();
      expect(warn).toHaveLength(1);
      expect(warn[0]).toContain('no AWS credentials');
    } finally {
      Object.assign(process.env, keep);
      delete process.env.AWS_SHARED_CREDENTIALS_FILE;
      delete process.env.AWS_CONFIG_FILE;
    }
  });

  it('a run on a file that is not on EBS asks nothing: not IMDS, not EC2', async () => {
    const before = imds.requests.length;
    const cap = captureIo();
    const code = await runCommand(['--name=p', `--filename=${join(dir, 'p.bin')}`, '--size=1m', '--rw=read', '--bs=64k', '--ioengine=psync',
      '--output-format=json'], cap.io);
    expect(code, cap.err()).toBe(0);
    expect(JSON.parse(cap.out()).volbench.cloud).toBeUndefined();
    expect(imds.requests.length).toBe(before);
    expect(cap.err()).not.toContain('cloud');
  });

  it('--no-cloud-lookup and VOLBENCH_CLOUD_LOOKUP=off: nothing is asked', async () => {
    const before = imds.requests.length;
    let asked = 0;
    const ids = async () => { asked++; return [volumeId]; };
    expect(await cloudForRun(['/x'], { lookup: false }, () => {}, { volumeIdsOf: ids })).toBeUndefined();
    expect(await cloudForRun(['/x'], {}, () => {}, { volumeIdsOf: ids, env: { VOLBENCH_CLOUD_LOOKUP: 'off' } })).toBeUndefined();
    const cap = captureIo();
    const code = await runCommand(['--name=n', `--filename=${join(dir, 'n.bin')}`, '--size=1m', '--rw=read', '--bs=64k', '--ioengine=psync',
      '--output-format=json', '--no-cloud-lookup'], cap.io, { volumeIdsOf: ids });
    expect(code, cap.err()).toBe(0);
    expect(JSON.parse(cap.out()).volbench.cloud).toBeUndefined();
    expect(asked).toBe(0);
    expect(imds.requests.length).toBe(before);
  });
});
