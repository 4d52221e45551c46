/**
 * A write job with verify=crc32c do_verify=1: fio times its two phases apart (backend.c
 * update_runtime): the write phase is the writes' runtime, the verify pass the reads', and the
 * job's runtime covers both. The writes are paced (rate_iops=,800) so that the write phase lasts
 * a known ~1.3 s and the unpaced verify pass a few milliseconds.
 *
 * Broke: volbench reported the whole job's time as both the write and the read runtime, so both
 * directions showed the same IOPS (write 789, read 789; fio write 800, read 341k), in the JSON
 * and in the normal text. And a read rate (rate_iops=300,800) held the verify pass's reads
 * forever: fio does not pace a verify pass. Expected: fio's per-phase runtimes, and the verify
 * pass at full speed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { formatJson, formatNormal, parseFioArgs, parseSpec, runParsed } from '../../src/index.js';
import { requires } from '../helpers/requires.js';
import { makeWorkspace, runFio, titled, type Json, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');

const reason = needs.missing('fio');
const WRITES = 1024;
const RATE = 800;

/** volbench through the library, as JSON and as fio's normal text; cancelled after `limitMs`. */
async function runVolbenchBoth(argv: string[], cwd: string, limitMs: number): Promise<{ json: Json; normal: string }> {
  const result = await runParsed(parseSpec(parseFioArgs(argv).spec), { cwd, signal: AbortSignal.timeout(limitMs) });
  return { json: JSON.parse(formatJson(result)), normal: formatNormal(result) };
}

/** The msec of a direction's headline in normal text: `  write: IOPS=…(4096KiB/1279msec)`. */
function headlineMsec(normal: string, dir: string): number | undefined {
  const m = new RegExp(`^  ${dir}: IOPS=.*/(\\d+)msec\\)`, 'm').exec(normal);
  return m ? Number(m[1]) : undefined;
}

describe.skipIf(reason !== undefined)(titled('write + verify: each phase has its own runtime, as fio', reason), () => {
  let ws: Workspace;
  let fio: Json;
  let volbench: { json: Json; normal: string };
  const argv = (): string[] => ['--name=verify-phases', `--filename=${join(ws.dir, 'target.bin')}`,
    '--ioengine=psync', '--rw=write', '--bs=4k', `--size=${(WRITES * 4) >> 10}m`, `--rate_iops=,${RATE}`,
    '--verify=crc32c', '--do_verify=1', '--output-format=json'];

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'verify-phases');
    fio = (await runFio(argv(), ws.fioDir)).json.jobs[0];
    volbench = await runVolbenchBoth(argv(), ws.volbenchDir, 30_000);
  });
  afterAll(() => ws?.remove());

  it('both tools write every block and read every block back', () => {
    for (const [tool, job] of [['fio', fio], ['volbench', volbench.json.jobs[0]]] as const) {
      expect(job.write.total_ios, tool).toBe(WRITES);
      expect(job.read.total_ios, tool).toBe(WRITES);
    }
  });

  // Before: volbench's write and read runtimes were both the job's (~1297 ms), their IOPS equal.
  it('the writes\' runtime is the paced write phase, the reads\' the short verify pass', () => {
    for (const [tool, job] of [['fio', fio], ['volbench', volbench.json.jobs[0]]] as const) {
      const paced = (1000 * (WRITES - 1)) / RATE;
      expect(job.write.runtime, tool).toBeGreaterThanOrEqual(Math.floor(paced));
      expect(job.write.iops, tool).toBeGreaterThan(RATE * 0.97);
      expect(job.read.runtime, tool).toBeLessThan(job.write.runtime / 4);
      expect(job.read.iops, tool).toBeGreaterThan(4 * job.write.iops);
      // The job's runtime covers both phases (each rounded up to a millisecond on its own).
      expect(job.job_runtime, tool).toBeGreaterThanOrEqual(job.write.runtime + job.read.runtime - 2);
    }
  });

  it('the normal text\'s headlines carry each direction\'s own runtime', () => {
    const job = volbench.json.jobs[0];
    expect(headlineMsec(volbench.normal, 'read')).toBeLessThan(headlineMsec(volbench.normal, 'write')! / 4);
    expect(headlineMsec(volbench.normal, 'write')).toBe(job.write.runtime);
    expect(headlineMsec(volbench.normal, 'read')).toBe(job.read.runtime);
    expect(volbench.normal).toMatch(new RegExp(`WRITE: .*run=${job.write.runtime}-${job.write.runtime}msec`));
    expect(volbench.normal).toMatch(new RegExp(`READ: .*run=${job.read.runtime}-${job.read.runtime}msec`));
  });
});

describe.skipIf(reason !== undefined)(titled('a read rate does not pace the verify pass, as fio', reason), () => {
  let ws: Workspace;
  const jobs: Record<string, Json> = {};
  const argv = (): string[] => ['--name=verify-rate', `--filename=${join(ws.dir, 'target.bin')}`,
    '--ioengine=psync', '--rw=write', '--bs=4k', '--size=1m', '--rate_iops=300,800', '--verify=crc32c',
    '--output-format=json'];

  beforeAll(async () => {
    ws = makeWorkspace('memory', 'verify-rate');
    jobs.fio = (await runFio(argv(), ws.fioDir)).json.jobs[0];
    // Before, the verify pass never ended: cancelled here, it reports what it read by then.
    jobs.volbench = (await runVolbenchBoth(argv(), ws.volbenchDir, 10_000)).json.jobs[0];
  }, 30_000);
  afterAll(() => ws?.remove());

  it('the verify pass reads every block, faster than the read rate would allow', () => {
    for (const tool of ['fio', 'volbench']) {
      expect(jobs[tool].error, tool).toBe(0);
      expect(jobs[tool].read.total_ios, tool).toBe(256);
      expect(jobs[tool].read.iops, tool).toBeGreaterThan(4 * 300);
    }
  });
});
