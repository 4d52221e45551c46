/**
 * verify=crc32c: a written file verifies; one corrupted block makes a verify_only pass end with
 * EILSEQ and a message naming that block's offset; an intact file passes verify_only.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { runJobs } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { KiB, MiB, ScratchDir, dir, type Job } from '../helpers/run-fixtures.js';

const needs = requires('tmpfs');

const EILSEQ = 84;
const BS = 4 * KiB;
const scratch = new ScratchDir('verify');
afterAll(() => scratch.remove());

function verifyJob(path: string, extra: Job = {}): Job {
  return { name: 'verify', filename: path, size: '4m', bs: '4k', rw: 'write', verify: 'crc32c', ...extra };
}

describe('verify=crc32c', () => {
  it('writes a file and reads every block back without an error', async () => {
    const path = scratch.path('written.dat');
    const result = await runJobs({ jobs: [verifyJob(path)] });
    const job = result.jobs[0];
    expect(job.error).toBe(0);
    expect(dir(job, 'write').total_ios).toBe((4 * MiB) / BS);
    // The verify pass reads each written block once.
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
    expect(result.volbench.jobs[0].error_message).toBe('');
  });

  it('randrw checks what it wrote in the verify pass, not reads of blocks it has not written', async () => {
    // Regression: every main-phase read was checked, and a read of a block that still held
    // layout data ended the job with EILSEQ.
    const path = scratch.path('mixed.dat');
    const result = await runJobs({ jobs: [verifyJob(path, { rw: 'randrw', rwmixread: 50 })] });
    const job = result.jobs[0];
    expect(result.volbench.jobs[0].error_message).toBe('');
    expect(job.error).toBe(0);
    const writes = dir(job, 'write').total_ios;
    expect(writes).toBeGreaterThan(0);
    // Each block is touched once (random map): the main reads and the writes cover the file,
    // and the verify pass reads each written block again.
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
  });

  it('verify_only passes on an intact file and writes nothing', async () => {
    const path = scratch.path('intact.dat');
    await runJobs({ jobs: [verifyJob(path)] });
    const result = await runJobs({ jobs: [verifyJob(path, { verify_only: 1 })] });
    const job = result.jobs[0];
    expect(job.error).toBe(0);
    expect(dir(job, 'write').total_ios).toBe(0);
    expect(dir(job, 'read').total_ios).toBe((4 * MiB) / BS);
  });

  it('verify_only ends with EILSEQ naming the offset of a corrupted block', async () => {
    const path = scratch.path('corrupt.dat');
    const written = await runJobs({ jobs: [verifyJob(path)] });
    expect(written.jobs[0].error).toBe(0);
    // Overwrite 100 bytes inside the block at 2 MiB + 12 KiB, past its header.
    const blockOffset = 2 * MiB + 3 * BS;
    const fd = openSync(path, 'r+');
    try {
      writeSync(fd, Buffer.alloc(100, 0xab), 0, 100, blockOffset + 200);
    } finally {
      closeSync(fd);
    }
    const result = await runJobs({ jobs: [verifyJob(path, { verify_only: 1 })] });
    const job = result.jobs[0];
    expect(job.error).toBe(EILSEQ);
    expect(result.volbench.jobs[0].error_message).toContain(`offset ${blockOffset}`);
    expect(dir(job, 'write').total_ios).toBe(0);
  });

  it("says where a block failed, never what it holds: a verify read of another's file leaks no bytes", async () => {
    // The error printed the first 4 bytes of a block ("bad magic header 0x45524345" = "ECRE"),
    // so reading any file 4 bytes a request was possible.
    const path = scratch.path('secret.dat');
    const secret = Buffer.alloc(1 * MiB, 0);
    secret.write('SECRET-TOKEN-0123456789', 0);
    writeFileSync(path, secret);
    const result = await runJobs({ jobs: [verifyJob(path, { verify_only: 1, size: '1m' })] });
    expect(result.jobs[0].error).toBe(EILSEQ);
    const message = result.volbench.jobs[0].error_message;
    expect(message).toContain('offset 0');
    expect(message).toContain('has no verify header');
    const hex = secret.subarray(0, 4).readUInt32LE(0).toString(16);
    expect(message).not.toContain(hex);
    expect(message).not.toMatch(/SECRET|0x[0-9a-f]{8}/);
  });
});
