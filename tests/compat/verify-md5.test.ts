/**
 * verify=md5 writes fio's own header (verify.h: magic 0xacca, type, length, seed, offset, time,
 * thread, numberio, the header's crc32c, then the MD5 of the rest of the block), so the two tools
 * check each other's files: fio's verify_only passes on what volbench wrote and volbench's on
 * what fio wrote, and both refuse a block with one byte changed. A write job with its verify pass
 * does fio's I/O count in both phases, and puts fio's bytes on a device (an ext4 loop, counted
 * in /sys/block/loopN/stat; the files laid out beforehand, so that only the job's I/O counts).
 *
 * Was refused before ("verify=md5 is not supported by volbench yet").
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { diskTraffic } from './disk-traffic.js';
import { requires } from '../helpers/requires.js';
import { makeExt4Loop, type Ext4Loop } from './ext4-loop.js';
import { makeWorkspace, runFio, runVolbench, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('child', 'tmpfs', 'loop', 'mkfs', 'fio');
const reason = needs.missing('fio');
const EILSEQ = 84;
const BLOCKS = 512;
const WRITE = ['--ioengine=psync', '--rw=randwrite', '--bs=16k', '--size=8m', '--verify=md5'];

/** Changes one byte in the data of block `block` (16 KiB blocks), past fio's 56-byte header. */
function corrupt(path: string, block: number): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from('X'), 0, 1, block * 16384 + 1000);
  } finally {
    closeSync(fd);
  }
}

/** The tool's job entry; fio exits 1 when a job fails, its JSON written all the same. */
async function job(tool: 'fio' | 'volbench', argv: string[], ws: Workspace): Promise<Json> {
  if (tool === 'volbench') return (await runVolbench(argv, ws.volbenchDir)).json.jobs[0];
  try {
    return (await runFio([...argv, '--output-format=json'], ws.fioDir)).json.jobs[0];
  } catch {
    const text = readFileSync(join(ws.fioDir, 'fio-output.json'), 'utf8');
    return JSON.parse(text.slice(text.search(/^\{/m))).jobs[0];
  }
}

describe.skipIf(reason !== undefined)(titled('verify=md5: fio\'s header, so each tool checks the other\'s file', reason), () => {
  let ws: Workspace;
  const file = (name: string): string => join(ws.dir, name);
  const jobs: Record<string, Json> = {};

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'md5');
    for (const tool of ['fio', 'volbench'] as const) {
      jobs[`${tool} write+verify`] = await job(tool, ['--name=md5', `--filename=${file(`${tool}-phases.bin`)}`, ...WRITE], ws);
      // Written without the pass, for the other tool to check.
      jobs[`${tool} write`] = await job(tool, ['--name=md5', `--filename=${file(`${tool}.bin`)}`, ...WRITE, '--do_verify=0'], ws);
    }
    for (const [checker, writer] of [['fio', 'volbench'], ['volbench', 'fio']] as const) {
      const argv = ['--name=md5', `--filename=${file(`${writer}.bin`)}`, ...WRITE, '--verify_only'];
      jobs[`${checker} checks ${writer}'s`] = await job(checker, argv, ws);
      corrupt(file(`${writer}.bin`), 7);
      jobs[`${checker} checks ${writer}'s, corrupted`] = await job(checker, argv, ws);
      // Back as the writer made it, for the other checker.
      jobs[`${writer} write`] = await job(writer, ['--name=md5', `--filename=${file(`${writer}.bin`)}`, ...WRITE, '--do_verify=0'], ws);
    }
  }, 60_000);
  afterAll(() => ws?.remove());

  it('a write job and its verify pass: every block written, then read back, in both tools', () => {
    for (const tool of ['fio', 'volbench']) {
      const j = jobs[`${tool} write+verify`];
      expect([j.error, j.write.total_ios, j.read.total_ios], tool).toEqual([0, BLOCKS, BLOCKS]);
    }
  });

  it.each([['fio', 'volbench'], ['volbench', 'fio']])('%s\'s verify_only passes on what %s wrote', (checker, writer) => {
    const j = jobs[`${checker} checks ${writer}'s`];
    expect([j.error, j.read.total_ios, j.read.io_bytes]).toEqual([0, BLOCKS, BLOCKS * 16384]);
  });

  it.each([['fio', 'volbench'], ['volbench', 'fio']])('%s refuses a byte changed in %s\'s block 7 (EILSEQ)', (checker, writer) => {
    const j = jobs[`${checker} checks ${writer}'s, corrupted`];
    expect(j.error).toBe(EILSEQ);
  });
});

const loopReason = reason ?? needs.missing('loop', 'mkfs');

describe.skipIf(loopReason !== undefined)(titled('verify=md5 on an ext4 loop: fio\'s bytes at the device', loopReason), () => {
  let loop: Ext4Loop;
  let ws: Workspace;
  const traffic: Record<string, { written: number; read: number; job: Json }> = {};

  beforeAll(async () => {
    loop = makeExt4Loop('md5-loop');
    ws = makeWorkspace('memory', 'md5-loop');
    for (const tool of ['fio', 'volbench'] as const) {
      // Laid out beforehand, so that the counts are the job's alone in both tools.
      const path = join(loop.dir, `${tool}.bin`);
      writeFileSync(path, Buffer.alloc(BLOCKS * 16384));
      const argv = ['--name=md5', `--filename=${path}`, ...WRITE, '--direct=1'];
      let j: Json;
      const t = await diskTraffic(loop.statFile, async () => {
        j = await job(tool, argv, ws);
      });
      traffic[tool] = { written: t.writtenBytes, read: t.readBytes, job: j! };
    }
  }, 60_000);
  afterAll(() => {
    ws?.remove();
    loop?.release();
  });

  it('writes and reads back what fio does, and the device sees it (within 5%)', () => {
    const { fio, volbench } = traffic;
    expect([volbench.job.write.total_ios, volbench.job.read.total_ios]).toEqual([fio.job.write.total_ios, fio.job.read.total_ios]);
    expect(volbench.written).toBeGreaterThanOrEqual(BLOCKS * 16384);
    expect(Math.abs(volbench.written - fio.written)).toBeLessThanOrEqual(0.05 * fio.written);
    expect(volbench.read).toBeGreaterThanOrEqual(BLOCKS * 16384);
    expect(Math.abs(volbench.read - fio.read)).toBeLessThanOrEqual(0.05 * fio.read);
  });
});
