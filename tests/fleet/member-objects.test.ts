/**
 * The member's objects, without a bucket: their keys stay in the member's own folder (a reserved
 * label names none), `down` and `reap` keep them as the study's record, progress.json is written
 * at once when the step or the test changes and otherwise at most every few seconds (one write at
 * a time, the newest waiting), and member.log keeps its first and last lines under its cap.
 */
import { describe, expect, it } from 'vitest';

import { memberObjectKey, memberPrefix, RESERVED_LABELS, STUDY_OBJECT_MAX_BYTES } from '../../src/api/study-objects.js';
import type { RunProgress } from '../../src/run/progress.js';
import { isRecord } from '../../src/fleet/fleet-resources.js';
import { MemberLog } from '../../src/fleet/member-agent/log.js';
import { ProgressReporter } from '../../src/fleet/member-agent/progress.js';
import { requires } from '../helpers/requires.js';

requires();

const rate = (iops: number, p99ns: number) => ({ iops, bw_bytes: iops * 4096, clat_mean_ns: p99ns / 2, clat_p99_ns: p99ns });
function progress(stage: number, stages: number, fraction: number): RunProgress {
  return {
    stage, stages, elapsedMs: 0, fraction, etaMs: null, runningJobs: 1, read: rate(1000, 250_000), write: rate(0, 0), trim: rate(0, 0), instances: [],
    status: 'r', layouts: [], layingOut: false,
  };
}

describe('a member\'s objects', () => {
  it('are named in its own folder only, and a reserved label names none', () => {
    expect(memberObjectKey('vb0123456789', 'gp3-500g', 'log')).toBe('vb0123456789/gp3-500g/member.log');
    expect(memberPrefix('vb0123456789', 'gp3-500g')).toBe('vb0123456789/gp3-500g/');
    for (const label of [...RESERVED_LABELS, '../x', 'a/b', '.hidden', '']) {
      expect(() => memberObjectKey('vb0123456789', label, 'result'), label).toThrow(expect.objectContaining({ code: 'EFLEET_STATE', field: 'label' }));
    }
  });

  it('are the study\'s record, which down and reap keep; the fleet\'s other objects are not', () => {
    for (const name of ['progress.json', 'result.json', 'done.json', 'member.log']) expect(isRecord(`vb0123456789/gp3-500g/${name}`), name).toBe(true);
    expect(isRecord('vb0123456789/results/gp3-500g.json')).toBe(true);
    expect(isRecord('vb0123456789/bundle/volbench-0.1.0-linux-x64.tar.gz')).toBe(false);
    expect(isRecord('vb0123456789/tls/gp3-500g.crt')).toBe(false);
    expect(isRecord('vb0123456789/gp3-500g/other.json')).toBe(false);
  });
});

describe('progress.json', () => {
  it('is written at once on a step or test, at most every few seconds on rates alone, one write at a time', async () => {
    let now = 1_000_000;
    const written: any[] = [];
    let release: () => void = () => {};
    let hold = true;
    const reporter = new ProgressReporter({
      label: 'gp3-8g', everyMs: 5000, now: () => now, log: () => {},
      write: (body) => {
        written.push(JSON.parse(body));
        return hold ? new Promise<void>((r) => { release = r; }) : Promise.resolve();
      },
    });
    reporter.enter('running');
    expect(written.map((w) => w.step)).toEqual(['running']);
    // While that write is under way, a test starts and rates come: the newest waits, alone.
    reporter.test({ suite: 'aws-ssd', jobs: ['RND16K-Q1T16-read'], test: 2, tests: 4, loop: 1, loops: 1 });
    now += 1000;
    reporter.progress(progress(0, 1, 0.5));
    expect(written).toHaveLength(1);
    release();
    await new Promise((r) => setImmediate(r));
    expect(written).toHaveLength(2);
    expect(written[1]).toMatchObject({ step: 'running', test: 'RND16K-Q1T16-read', test_index: 2, tests_total: 4, loop: 1, loops: 1, iops: 1000, clat_p99_us: 250 });
    // Half of test 2 of 4: 37.5% of the step, and as long again per share done.
    expect(written[1].percent).toBe(37.5);
    expect(written[1].eta_s).toBe(2);
    release();
    await new Promise((r) => setImmediate(r));
    // Rates alone, 1 s after the last write: not yet; 5 s after: written.
    now += 1000;
    reporter.progress(progress(0, 1, 0.6));
    expect(written).toHaveLength(2);
    now += 5000;
    reporter.progress(progress(0, 1, 0.7));
    expect(written).toHaveLength(3);
    hold = false;
    reporter.enter('done');
    release();
    await reporter.flush();
    expect(written.at(-1)).toMatchObject({ step: 'done', percent: 100, eta_s: 0 });
  });

  it('survives a write that fails: said once in the log, and the next one goes', async () => {
    const lines: string[] = [];
    let fail = true;
    const sent: string[] = [];
    const reporter = new ProgressReporter({
      label: 'gp3-8g', log: (l) => lines.push(l),
      write: async (body) => {
        if (fail) throw new Error('SlowDown');
        sent.push(body);
      },
    });
    reporter.enter('fetching');
    reporter.enter('running');
    await reporter.flush();
    expect(lines).toEqual(['progress.json not written: SlowDown']);
    fail = false;
    reporter.enter('uploading');
    await reporter.flush();
    expect(JSON.parse(sent[0]).step).toBe('uploading');
  });
});

describe('member.log', () => {
  it('keeps its first and last lines under the size the study reads, and counts what it left out', () => {
    const log = new MemberLog(() => {}, () => new Date('2026-12-01T00:00:00Z'));
    for (let i = 0; i < 40_000; i++) log.line(`line ${i} ${'x'.repeat(40)}`);
    const text = log.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(STUDY_OBJECT_MAX_BYTES.log);
    expect(text.startsWith('2026-12-01T00:00:00.000Z line 0 ')).toBe(true);
    expect(text.trimEnd().endsWith(`line 39999 ${'x'.repeat(40)}`)).toBe(true);
    expect(text).toMatch(/… \d+ line\(s\) left out …/);
  });
});
