/**
 * The live table (a suite's tests now, a fleet's members later): redrawn in place on a terminal,
 * a line per event elsewhere, first-done against last-done at the end.
 */
import { describe, expect, it } from 'vitest';

import { LiveTable, doneSummary, tableLines } from '../../src/cli/live-table.js';
import { requires } from '../helpers/requires.js';
import { captured, screen } from '../helpers/terminal.js';

requires();

const stream = (isTTY: boolean) => captured(isTTY);

describe('the live table', () => {
  it('on a terminal, redraws the same rows in place, never a line per update', () => {
    const out = stream(true);
    let now = 0;
    const table = new LiveTable(out, 'member', () => now);
    table.set('gp3', { step: '2/4', loop: '1/5', state: 'running', iops: 3012, p99Ns: 1_240_000, fraction: 0.41, etaMs: 72_000 });
    table.set('io2', { step: '1/4', state: 'waiting' });
    table.setStatus('fleet f1: 2 members');
    for (let i = 0; i < 5; i++) {
      table.set('gp3', { iops: 3000 + i });
      table.draw();
    }
    now = 12_300;
    table.set('gp3', { state: 'done', fraction: 1 });
    now = 40_000;
    table.set('io2', { state: 'done', fraction: 1, iops: 16_000 });
    table.finish();
    expect(screen(out.text)).toEqual([
      'fleet f1: 2 members',
      'member  step  loop  IOPS     p99  done  ETA',
      'gp3      2/4   1/5    3k  1.24ms  100%  done 12.3 s',
      'io2      1/4         16k          100%  done 40.0 s',
      'first done: gp3 at 12.3 s; last done: io2 at 40.0 s (27.7 s apart)',
      '',
    ]);
  });

  it('off a terminal, draws nothing and writes the event lines, then the summary', () => {
    const out = stream(false);
    let now = 0;
    const table = new LiveTable(out, 'test', () => now);
    table.set('a', { state: 'running' });
    table.draw();
    table.event('a started');
    now = 1000;
    table.set('a', { state: 'done' });
    table.event('a ended');
    now = 2500;
    table.set('b', { state: 'failed' });
    table.finish();
    expect(out.text).toBe('a started\na ended\nfirst done: a at 1.0 s; last done: b at 2.5 s (1.5 s apart)\n');
  });

  it('keeps its lines within the terminal, so that redrawing goes back over the right count', () => {
    const out = stream(true);
    Object.assign(out, { columns: 30 });
    const table = new LiveTable(out, 'test');
    table.set('a-very-long-test-name-that-does-not-fit', { state: 'running', iops: 1 });
    table.draw();
    table.draw();
    expect(screen(out.text).every((l) => l.length <= 29)).toBe(true);
    expect(screen(out.text).filter((l) => l !== '')).toHaveLength(2);
  });

  it('says nothing of first and last before two rows are done; shows waiting rows without figures', () => {
    expect(doneSummary([{ name: 'a', state: 'done', endedAtMs: 5 }])).toBeNull();
    expect(tableLines([{ name: 'a', state: 'waiting', step: '1/2' }], 'test')).toEqual(['test  step  loop  IOPS  p99  done  ETA', 'a      1/2                         waiting']);
  });
});
