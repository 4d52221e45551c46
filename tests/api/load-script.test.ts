/**
 * bench/service-load.mjs --quick against a real `volbench serve`: pollers, submissions over a
 * small queue (429 with Retry-After), stalled and reading event streams, a cancel storm, then
 * kill -9 mid-run and a restart on the same data directory, and kill -9 again under load. The script exits 1 when an
 * invariant fails; its summary shows each of them held and that the load did what it says.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { ensureBuilt } from './helpers/child.js';

// What it asserts are counts and states, none a time (a kill waits until every volume holds a
// 60 s run; the drains wait a minute and more), so it runs beside another service file.
const needs = requires('child');

const SCRIPT = fileURLToPath(new URL('../../bench/service-load.mjs', import.meta.url));
let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), `volbench-load-script-${process.pid}-`));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runScript(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 110_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('bench/service-load.mjs --quick', () => {
  it('exits 0 with every invariant held, having loaded, cancelled, killed and restarted the service', async () => {
    const file = join(dir, 'summary.json');
    const { code, output } = await runScript(['--quick', '--summary-json', file]);
    expect(code, output).toBe(0);
    const s = JSON.parse(readFileSync(file, 'utf8'));
    expect(s.ok).toBe(true);
    expect(s.violations).toEqual({});
    expect(s.fiveXx).toBe(0);
    expect(s.submits.missingRetryAfter).toBe(0);
    expect(s.restart.lost).toBe(0);
    expect(s.restart.changed).toBe(0);
    expect(s.restart.leftRunning).toBe(0);
    // The load happened as described: every short run accepted in the end, the queue full at
    // least once, the streams open, pollers answered.
    expect(s.submits.accepted).toBeGreaterThanOrEqual(s.opts.runs);
    expect(s.submits.rejected429).toBeGreaterThan(0);
    expect(s.sse.stalled).toBe(s.opts.sse);
    expect(s.sse.readersFinal).toBe(s.sse.readers);
    expect(s.polls.run).toBeGreaterThan(0);
    expect(s.cancels.cancelled).toBeGreaterThan(0);
    // The kill came with a run going on every volume and runs queued behind them; after the
    // restart those failed as interrupted (their files removed) and these ran; what had ended
    // before is unchanged.
    expect(s.kill.running).toBe(s.volumes);
    expect(s.kill.queued).toBeGreaterThan(0);
    expect(s.restart.interrupted).toBe(s.kill.running);
    expect(s.restart.filesRemoved).toBe(s.kill.running);
    expect(s.restart.requeuedRan).toBe(s.kill.queued);
    expect(s.kill.endedBefore).toBeGreaterThanOrEqual(s.opts.runs);
    expect(s.restart.unchanged).toBe(s.kill.endedBefore);
    // Killed again in the thick of submissions and polls: nothing accepted is lost, nothing
    // that had ended changes, and the burst's runs ended finished or interrupted.
    expect(s.killUnderLoad.accepted).toBeGreaterThan(0);
    expect(s.killUnderLoad.lost).toBe(0);
    expect(s.killUnderLoad.changed).toBe(0);
    expect(s.killUnderLoad.leftRunning).toBe(0);
    expect(s.killUnderLoad.unchanged).toBe(s.kill.endedBefore);
  }, 120_000);
});
