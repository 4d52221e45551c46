/**
 * The status line on a terminal (the CLI under a pty made by script(1)): fio's characters and an
 * ETA from what is left.
 *
 * Broke: a randwrite job showed `[r(1)]` (fio prints `w` for random writes), the layout showed
 * `[f(N)]` (fio's "finishing"), and the ETA was the stage's elapsed time scaled by its share
 * done, layout included: a 10 s time_based job on a new 1 GiB file said `eta 00m:38s` at 10 %.
 * Expected: `w(1)` for the randwrite job; the layout on a line of its own; the first ETA shown at
 * 10 % of the run or more within 2 s of the time actually left.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { CLI } from '../helpers/cli.js';
import { ETA_JOB, ETA_TOLERANCE_MS, etaFigures, firstAt, type EtaSample } from '../helpers/eta.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { artifactsDir } from '../browser/browser.js';

requires('child', 'tmpfs', 'serial');

const SCRIPT = '/usr/bin/script';
const scratch = new ScratchDir('status-tty');
afterAll(() => scratch.remove());

interface TtyRun {
  /** Each chunk the terminal got, with when. */
  chunks: Array<{ at: number; text: string }>;
  endedAt: number;
  code: number | null;
}

/** The CLI with a terminal for its stdout and stderr, 160 columns wide. */
function onTerminal(args: string[]): Promise<TtyRun> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qfec', `stty cols 160; ${quoted}`, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: TtyRun['chunks'] = [];
    child.stdout.setEncoding('utf8').on('data', (text: string) => chunks.push({ at: Date.now(), text }));
    child.on('error', reject);
    child.on('close', (code) => resolve({ chunks, endedAt: Date.now(), code }));
  });
}

const STATUS = /Jobs: \d+ \(f=\d+\): \[([^\]]+)\]\[([\d.]+)%\]\[[^\]]*\]\[[^\]]*\]\[eta (\d+)m:(\d+)s\]/g;

describe.skipIf(!existsSync(SCRIPT))('the status line on a terminal', () => {
  it("shows fio's w for a randwrite job", async () => {
    const ran = await onTerminal(['run', '--name=rw', `--filename=${scratch.path('w.bin')}`, '--size=16m', '--rw=randwrite', '--bs=4k',
      '--runtime=1500ms', '--time_based', '--output-format=json', `--output=${scratch.path('w.json')}`]);
    expect(ran.code).toBe(0);
    const statuses = ran.chunks.flatMap((c) => [...c.text.matchAll(STATUS)].map((m) => m[1]));
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses).toContain('w(1)');
    expect(statuses.filter((s) => s !== 'w(1)' && s !== '_(1)' && s !== 'P(1)')).toEqual([]);
  });

  it('shows the layout on its own line, and an ETA at 10 % within 2 s of the time left', async () => {
    const ran = await onTerminal(['run', '--name=eta', `--filename=${scratch.path('eta.bin')}`, `--size=${ETA_JOB.size}`, '--rw=randread', '--bs=4k',
      '--iodepth=8', '--direct=1', `--runtime=${ETA_JOB.runtimeS}`, '--time_based', '--unlink=1', '--output-format=json', `--output=${scratch.path('eta.json')}`]);
    expect(ran.code).toBe(0);
    const samples: EtaSample[] = ran.chunks.flatMap((c) => [...c.text.matchAll(STATUS)].map((m) => ({
      at: c.at, fraction: Number(m[2]) / 100, etaMs: (Number(m[3]) * 60 + Number(m[4])) * 1000,
    })));
    const first = firstAt(samples, 0.1);
    expect(first, JSON.stringify(samples)).toBeDefined();
    expect(Math.abs(first!.etaMs! - (ran.endedAt - first!.at))).toBeLessThanOrEqual(ETA_TOLERANCE_MS);
    // fio's finishing character never stands for the layout; a layout long enough to be seen
    // (over a second: the engine reports once a second) has its own line.
    const all = ran.chunks.map((c) => c.text).join('');
    expect(all).not.toMatch(/\[f\(\d+\)\]/);
    const layoutLines = [...all.matchAll(/Laying out eta\.bin: \[([\d.]+)%\]\[(\d+\w+) of (\d+\w+)\]\[(\d+\w+\/s)\]\[eta \d+m:\d+s\]/g)];
    const layoutMs = samples.length ? samples[0].at - ran.chunks[0].at : 0;
    if (layoutMs > 1500) expect(layoutLines.length, all).toBeGreaterThan(0);
    writeFileSync(`${artifactsDir()}/eta-terminal.json`, `${JSON.stringify({ job: ETA_JOB, layoutLines: layoutLines.length, figures: etaFigures(samples, ran.endedAt) }, null, 2)}\n`);
  });
});
