/**
 * A job over several files, and the sizes of its files, against fio 3.33 on an ext4 loop device
 * whose counters (/sys/block/loopN/stat) show what reached the disk.
 *
 * Broke: `filename=a:b`, `directory=a:b` and `nrfiles` were refused; `--size=64m --filesize=16m`
 * made a 64 MiB file and did 16,384 reads where fio makes 16 MiB and does 4,096; a randwrite
 * `verify=crc32c-intel` job laid its file out with data before writing it, 64.05 MiB at the disk
 * against fio's 32.09 MiB; an etcd-style `fdatasync=1 bs=2300` job made one fdatasync fewer than
 * fio and a file 1,972 bytes shorter.
 * Expected: fio's files (names and lengths), fio's I/O counts, per file where a file sits on the
 * device and its sibling does not, fio's bytes at the disk, and fio's JSON shape.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { makeExt4Loop, type DeviceReads, type Ext4Loop } from './ext4-loop.js';
import {
  itPrintsWhatFioPrints, makeWorkspace, runFio, runVolbench, titled, type Json, type Printed, type Workspace,
} from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'fio', 'libaio');

const reason = needs.missing('fio', 'libaio', 'loop', 'mkfs');
const MiB = 1 << 20;
const TOOLS = ['fio', 'volbench'] as const;
type Tool = (typeof TOOLS)[number];

interface Measured {
  printed: Printed;
  doc: Json;
  device: DeviceReads;
  /** Files the tool left in its directory on the device: name → length. */
  files: Record<string, number>;
}

describe.skipIf(reason !== undefined)(titled('several files per job, and file sizes, as fio', reason), () => {
  let disk: Ext4Loop;
  let ws: Workspace;
  const dirOf = (tool: Tool, label: string): string => join(disk.dir, tool, label);

  /** The same flags through each tool, each in a fresh directory of its own on the device. */
  async function measure(tool: Tool, label: string, argv: (dir: string, tool: Tool) => string[], prepare?: (dir: string, tool: Tool) => void): Promise<Measured> {
    const dir = dirOf(tool, label);
    mkdirSync(dir, { recursive: true });
    prepare?.(dir, tool);
    execFileSync('sync');
    let printed: Printed;
    const device = await disk.reads(async () => {
      const args = [...argv(dir, tool), '--output-format=json'];
      printed = tool === 'fio' ? await runFio(args, ws.fioDir) : await runVolbench(args, ws.volbenchDir);
      execFileSync('sync');
    });
    const files = Object.fromEntries(readdirSync(dir).map((n) => [n, statSync(join(dir, n)).size]));
    return { printed: printed!, doc: printed!.json, device, files };
  }

  async function both(label: string, argv: (dir: string, tool: Tool) => string[], prepare?: (dir: string, tool: Tool) => void): Promise<Record<Tool, Measured>> {
    return { fio: await measure('fio', label, argv, prepare), volbench: await measure('volbench', label, argv, prepare) };
  }

  const laidOut = (dir: string, name: string, bytes: number): void => {
    execFileSync('fio', ['--name=layout', `--filename=${join(dir, name)}`, `--size=${bytes}`, '--rw=write', '--bs=1m',
      '--output-format=terse']);
  };

  let nrfiles: Record<Tool, Measured>;
  let twoNames: Record<Tool, Measured>;
  let sizeFilesize: Record<Tool, Measured>;
  let randomService: Record<Tool, Measured>;
  let verifyWrite: Record<Tool, Measured>;
  let etcd: Record<Tool, Measured>;

  beforeAll(async () => {
    disk = makeExt4Loop('several-files', 320 * MiB);
    ws = makeWorkspace('memory', 'several-files');
    nrfiles = await both('nrfiles', (dir) => [`--directory=${dir}`, '--name=nf', '--nrfiles=4', '--size=16m',
      '--rw=randread', '--bs=4k', '--ioengine=libaio', '--iodepth=8', '--direct=1']);
    // One file on the device, its sibling in memory: the device sees that file's share alone.
    twoNames = await both('names', (dir, tool) => [`--filename=${join(dir, 'a.bin')}:${join(ws.dir, `${tool}-b.bin`)}`,
      '--name=ab', '--rw=randread', '--bs=4k', '--ioengine=psync', '--direct=1'], (dir, tool) => {
      laidOut(dir, 'a.bin', 4 * MiB);
      laidOut(ws.dir, `${tool}-b.bin`, 12 * MiB);
    });
    sizeFilesize = await both('filesize', (dir) => [`--directory=${dir}`, '--name=fs', '--size=64m', '--filesize=16m',
      '--rw=randread', '--bs=4k', '--ioengine=psync', '--direct=1']);
    randomService = await both('random', (dir) => [`--directory=${dir}`, '--name=rs', '--nrfiles=3', '--size=6m',
      '--file_service_type=random:2', '--rw=randrw', '--bssplit=4k/50:64k/50', '--ioengine=psync', '--direct=1']);
    verifyWrite = await both('verify', (dir) => [`--filename=${join(dir, 'v.bin')}`, '--name=vw', '--rw=randwrite',
      '--bs=16k', '--verify=crc32c-intel', '--ioengine=libaio', '--iodepth=4', '--size=16m', '--direct=1']);
    etcd = await both('etcd', (dir) => [`--directory=${dir}`, '--name=mytest', '--rw=write', '--ioengine=sync',
      '--fdatasync=1', '--size=2m', '--bs=2300']);
  }, 120_000);
  afterAll(() => {
    ws?.remove();
    disk?.release();
  });


  it('nrfiles=4: fio\'s file names and lengths, its I/O count, its bytes at the disk', () => {
    for (const tool of TOOLS) {
      expect(nrfiles[tool].files, tool).toEqual({ 'nf.0.0': 4 * MiB, 'nf.0.1': 4 * MiB, 'nf.0.2': 4 * MiB, 'nf.0.3': 4 * MiB });
      expect(nrfiles[tool].doc.jobs[0].read.total_ios, tool).toBe(4096);
      expect(nrfiles[tool].device.sectors * 512, tool).toBeGreaterThanOrEqual(16 * MiB);
      expect(nrfiles[tool].device.sectors * 512, tool).toBeLessThan(16 * MiB + 8 * 4096);
    }
    // The job's files all on one device: disk_util names it once, as fio's does.
    expect(nrfiles.volbench.doc.disk_util.map((d: Json) => d.name)).toEqual(nrfiles.fio.doc.disk_util.map((d: Json) => d.name));
  });

  it('filename=a:b reads each file whole, the file on the device exactly as under fio', () => {
    for (const tool of TOOLS) {
      expect(twoNames[tool].doc.jobs[0].read.total_ios, tool).toBe(4096);
      // Its 1,024 blocks, and now and then a block of the filesystem's own.
      expect(twoNames[tool].device.requests, tool).toBeGreaterThanOrEqual(1024);
      expect(twoNames[tool].device.requests, tool).toBeLessThan(1024 + 8);
      expect(twoNames[tool].device.sectors * 512, tool).toBeLessThan(4 * MiB + 8 * 4096);
    }
  });

  it('size=64m filesize=16m: a 16 MiB file and 4,096 reads, as fio', () => {
    for (const tool of TOOLS) {
      expect(sizeFilesize[tool].files, tool).toEqual({ 'fs.0.0': 16 * MiB });
      expect(sizeFilesize[tool].doc.jobs[0].read.total_ios, tool).toBe(4096);
    }
  });

  it('file_service_type=random:2 with bssplit draws as fio: the same files, directions, sizes and offsets', () => {
    // The count of a split job under fio's map swings with every draw (docs/fio-differences.md):
    // equal counts and bytes per direction mean equal draws.
    const counts = (m: Measured) => ['read', 'write'].map((d) => [m.doc.jobs[0][d].total_ios, m.doc.jobs[0][d].io_bytes]);
    expect(counts(randomService.volbench)).toEqual(counts(randomService.fio));
    expect(randomService.fio.doc.jobs[0].read.io_bytes + randomService.fio.doc.jobs[0].write.io_bytes).toBe(6 * MiB);
  });

  it('a randwrite verify job writes its file once: sectors written within 5% of fio\'s', () => {
    const fio = verifyWrite.fio.device.writtenSectors;
    // The data once, and the filesystem's own writes (journal, inode) beside it.
    expect(fio * 512).toBeGreaterThanOrEqual(16 * MiB);
    expect(fio * 512).toBeLessThan(17 * MiB);
    expect(Math.abs(verifyWrite.volbench.device.writtenSectors - fio)).toBeLessThan(0.05 * fio);
    for (const tool of TOOLS) {
      // The verify pass reads back what was written, from the disk.
      expect(verifyWrite[tool].device.sectors * 512, tool).toBeGreaterThanOrEqual(16 * MiB);
      expect(verifyWrite[tool].device.sectors * 512, tool).toBeLessThan(16 * MiB + 8 * 4096);
      expect(verifyWrite[tool].doc.jobs[0].write.total_ios, tool).toBe(1024);
      expect(verifyWrite[tool].doc.jobs[0].read.total_ios, tool).toBe(1024);
    }
  });

  it('fdatasync=1 bs=2300: fio\'s writes, a sync after each (the last too), fio\'s file length', () => {
    for (const tool of TOOLS) expect(etcd[tool].files, tool).toEqual({ 'mytest.0.0': 2 * MiB });
    expect(etcd.fio.doc.jobs[0].write.total_ios).toBe(911);
    expect(etcd.volbench.doc.jobs[0].write.total_ios).toBe(911);
    // fio 3.33 counts its fdatasyncs under read.short_ios (docs/fio-differences.md).
    expect(etcd.volbench.doc.jobs[0].sync.total_ios).toBe(etcd.fio.doc.jobs[0].read.short_ios);
    expect(etcd.volbench.doc.jobs[0].sync.total_ios).toBe(911);
  });

  itPrintsWhatFioPrints('nrfiles=4', () => ({ fio: nrfiles.fio.printed, volbench: nrfiles.volbench.printed }));
});
