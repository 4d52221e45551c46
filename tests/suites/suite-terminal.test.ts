/**
 * `volbench suite` on a terminal (the CLI under a pty made by script(1)).
 *
 * Broke: a long suite gave little sense of time: a line per test, no loop, no overall ETA.
 * Expected: a table redrawn in place, a row per test (step, loop, IOPS, p99, % done, ETA) under
 * the suite's share done and ETA, and first-done against last-done when it ends.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

import { CLI } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';
import { screen } from '../helpers/terminal.js';
import { artifactsDir } from '../browser/browser.js';

requires('child', 'tmpfs');

const SCRIPT = '/usr/bin/script';
const scratch = new ScratchDir('suite-tty');
afterAll(() => scratch.remove());

function onTerminal(args: string[]): Promise<{ text: string; code: number | null }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qfec', `stty cols 120; ${quoted}`, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (text += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ text, code }));
  });
}

describe.skipIf(!existsSync(SCRIPT))('volbench suite on a terminal', () => {
  it('draws a live table of its tests in place, and ends with first done against last done', async () => {
    const directory = scratch.path('kdm');
    mkdirSync(directory);
    const ran = await onTerminal(['suite', 'kdiskmark', '--directory', directory, '--size=8m', '--runtime=1', '--loops=2', `--output=${scratch.path('out.txt')}`]);
    expect(ran.code, ran.text).toBe(0);
    const shown = screen(ran.text.replace(/\r\n/g, '\n'));
    writeFileSync(`${artifactsDir()}/suite-terminal.txt`, `${shown.join('\n')}\n`);
    // Redrawn in place: the table's header is on the screen once, however many reports came.
    expect(shown.filter((l) => /^test +step +loop +IOPS +p99 +done +ETA$/.test(l))).toHaveLength(1);
    const status = shown.findIndex((l) => l.startsWith('volbench suite kdiskmark: test '));
    expect(shown[status]).toMatch(/^volbench suite kdiskmark: test 8\/8, loop 2\/2, [\d.]+% done, eta \d\dm:\d\ds$/);
    const rows = shown.slice(status + 2, status + 10);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual([
      'SEQ1M-Q8T1-read', 'SEQ1M-Q1T1-read', 'RND4K-Q32T1-read', 'RND4K-Q1T1-read',
      'SEQ1M-Q8T1-write', 'SEQ1M-Q1T1-write', 'RND4K-Q32T1-write', 'RND4K-Q1T1-write',
    ]);
    rows.forEach((r, i) => expect(r).toMatch(new RegExp(`^\\S+ +${i + 1}/8 +2/2 +[\\d.]+[kM]? +[\\d.]+[nuµm]?s +100% +done [\\d.]+ s$`)));
    expect(shown[status + 10]).toMatch(/^first done: SEQ1M-Q8T1-read at [\d.]+ s; last done: RND4K-Q1T1-write at [\d.]+ s \([\d.]+ s apart\)$/);
    // Then the summary table, as off a terminal.
    expect(shown[status + 11]).toBe('kdiskmark (best of 2 loops)');
  });
});
