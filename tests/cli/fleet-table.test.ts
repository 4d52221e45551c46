/**
 * `fleet compare` and `fleet attach` as a person sees them.
 *
 * Broke: `fleet compare` scrolled a line per member per look (4 members: 4 lines a second in the
 * interactive mode), and nothing said which member finished first or last.
 * Expected: on a terminal, a table redrawn in place from the study's events, a row per member
 * (step i/N, loop, IOPS, p99, % done, ETA counting down between looks) under the fleet's line,
 * then first done against last done; events the table does not show above it, and those after
 * the runs under it. Off a terminal, a line per event as before; `--format json`, a JSON line
 * per event on stdout.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { MemberProgress } from '../../src/api/study-objects.js';
import { fleetPrinter, type FleetPrinterOptions } from '../../src/cli/fleet/fleet-table.js';
import { eventText } from '../../src/cli/fleet/print.js';
import type { FleetEvent, FleetState } from '../../src/fleet/index.js';
import { requires } from '../helpers/requires.js';
import { captured, screen } from '../helpers/terminal.js';

requires();

const T0 = Date.parse('2026-12-01T10:00:00Z');
const fleetId = 'vb0123456789';
const GP3 = 'gp3-500g';
const IO2 = 'io2-500g-16000iops';
const ST1 = 'st1-2t';
const iso = (s: number): string => new Date(T0 + s * 1000).toISOString();

/** A member's progress.json as it wrote it `s` seconds after T0. */
function progress(label: string, s: number, p: Partial<MemberProgress>): FleetEvent {
  const body: MemberProgress = { label, at: iso(s), step: 'running', ...p };
  return { event: 'progress', fleetId, label, line: `${body.step}`, progress: body };
}

/** A study of three members, as the machine says it, each event at its second. */
const STUDY: Array<[number, FleetEvent]> = [
  [0, { event: 'created', fleetId, region: 'us-east-1', instanceType: 'm6i.large', members: [GP3, IO2, ST1], expiresAt: iso(7200) }],
  [1, { event: 'step', fleetId, step: 'creating', from: 'planned' }],
  [90, { event: 'member-up', fleetId, label: GP3, instanceId: 'i-0aa' }],
  [95, { event: 'member-up', fleetId, label: IO2, instanceId: 'i-0bb' }],
  [99, { event: 'member-up', fleetId, label: ST1, instanceId: 'i-0cc' }],
  [100, { event: 'step', fleetId, step: 'running', from: 'creating' }],
  [110, progress(GP3, 108, { step: 'booting' })],
  [110, progress(IO2, 109, { step: 'preconditioning', percent: 0 })],
  [120, progress(GP3, 118, { test: 'RND4K-Q32T1-read', test_index: 3, tests_total: 8, loop: 2, loops: 5, percent: 41, eta_s: 600, iops: 3012, clat_p99_us: 1240 })],
  [120, progress(ST1, 119, { test: 'SEQ1M-Q8T1-read', test_index: 1, tests_total: 8, percent: 5, eta_s: 900, iops: 125, clat_p99_us: 88_000 })],
  [130, progress(GP3, 128, { test: 'RND4K-Q32T1-read', test_index: 3, tests_total: 8, loop: 3, loops: 5, percent: 45, eta_s: 560, iops: 2998, clat_p99_us: 1210 })],
  [130, progress(IO2, 129, { test: 'RND4K-Q32T1-read', test_index: 3, tests_total: 8, loop: 1, loops: 5, percent: 30, eta_s: 700, iops: 16_020, clat_p99_us: 520 })],
  [700, { event: 'member-done', fleetId, label: GP3, status: 'ok', finishedAt: iso(692.5), exitCode: 0 }],
  [900, { event: 'member-done', fleetId, label: ST1, status: 'failed', finishedAt: iso(897), exitCode: 1, reason: 'SEQ1M-Q8T1-read: EIO' }],
  [950, { event: 'member-done', fleetId, label: IO2, status: 'ok', finishedAt: iso(941.2), exitCode: 0 }],
  [951, { event: 'step', fleetId, step: 'collecting', from: 'running' }],
  [955, { event: 'collected', fleetId, label: GP3, key: `s3://b/${fleetId}/results/${GP3}.json`, file: `results/${fleetId}/${GP3}.json` }],
  [960, { event: 'tearing-down', fleetId }],
];

type Io = { stdout: NodeJS.WriteStream & { text: string }; stderr: NodeJS.WriteStream & { text: string } };

/** Plays `events` through a printer at their times (fake timers: the ETAs' countdown runs as it would); `after` is called after each. */
function play(events: ReadonlyArray<[number, FleetEvent]>, io: Io, options: Partial<FleetPrinterOptions> = {}, after?: (i: number) => void): void {
  const printer = fleetPrinter(io, { json: false, autonomous: true, ...options });
  let now = 0;
  events.forEach(([s, e], i) => {
    vi.advanceTimersByTime((s - now) * 1000);
    now = s;
    printer.onEvent(e);
    after?.(i);
  });
  printer.finish();
}

const TABLE_HEADER = /^member +step +loop +IOPS +p99 +done +ETA$/;
const textOf = (e: FleetEvent): string | undefined => eventText(e, true);

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('fleet compare on a terminal', () => {
  it('redraws one row per member in place, counts the ETAs down between looks, and ends with first done against last done', () => {
    const io = { stdout: captured(false), stderr: captured(true) };
    const whileRunning: string[][] = [];
    const lastLook = STUDY.findIndex(([s, e]) => s === 130 && e.event === 'progress' && e.label === IO2);
    play(STUDY, io, {}, (i) => {
      if (i !== lastLook) return;
      whileRunning.push(screen(io.stderr.text));
      // Five seconds and no event: only the clock moved.
      vi.advanceTimersByTime(5000);
      whileRunning.push(screen(io.stderr.text));
    });
    const above = [
      `fleet ${fleetId}: creating 3 instance(s) in us-east-1 (volbench fleet down ${fleetId} removes them)`,
      `${GP3}: up (instance i-0aa)`,
      `${IO2}: up (instance i-0bb)`,
      `${ST1}: up (instance i-0cc)`,
    ];
    expect(whileRunning[0]).toEqual([
      ...above,
      `fleet ${fleetId}: running, 0/3 members done, eta 14m:49s`,
      'member              step  loop  IOPS     p99  done  ETA',
      'gp3-500g             3/8   3/5    3k  1.21ms   45%  09m:18s',
      'io2-500g-16000iops   3/8   1/5   16k   520us   30%  11m:39s',
      'st1-2t               1/8         125    88ms    5%  14m:49s',
      '',
    ]);
    // Each member's ETA counted from when it wrote it; the fleet's is its slowest member's.
    expect(whileRunning[1].slice(4, 9).map((l) => l.split(/ +/).pop())).toEqual(['14m:44s', 'ETA', '09m:13s', '11m:34s', '14m:44s']);
    expect(screen(io.stderr.text)).toEqual([
      ...above,
      `[${ST1}] done: failed (exit 1): SEQ1M-Q8T1-read: EIO`,
      `fleet ${fleetId}: 3/3 members done`,
      'member              step  loop  IOPS     p99  done  ETA',
      'gp3-500g             3/8   3/5    3k  1.21ms  100%  done 11m:33s',
      'io2-500g-16000iops   3/8   1/5   16k   520us  100%  done 15m:41s',
      'st1-2t               1/8         125    88ms    5%  failed 14m:57s',
      'first done: gp3-500g at 11m:33s; last done: io2-500g-16000iops at 15m:41s (04m:09s apart)',
      `fleet ${fleetId}: collecting`,
      `[${GP3}] collected: results/${fleetId}/${GP3}.json`,
      `fleet ${fleetId}: deleting`,
      '',
    ]);
    // In place: drawn many times (every event, every second), gone back over each time with the
    // cursor (5 lines: the fleet's, the header, 3 rows), never scrolled.
    const drawings = io.stderr.text.split('\n').filter((l) => TABLE_HEADER.test(l.replace(/\x1b\[2K/g, ''))).length;
    expect(drawings).toBeGreaterThan(STUDY.length);
    expect(io.stderr.text.match(/\x1b\[5F/g)?.length).toBeGreaterThanOrEqual(drawings - 1);
    expect(screen(io.stderr.text).filter((l) => TABLE_HEADER.test(l))).toHaveLength(1);
    expect(io.stdout.text).toBe('');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('writes a signal\'s line above the table, and draws nothing when refused before any event', () => {
    const io = { stdout: captured(false), stderr: captured(true) };
    const printer = fleetPrinter(io, { json: false, autonomous: true });
    for (const [, e] of STUDY.slice(0, 7)) printer.onEvent(e);
    printer.say('\nSIGINT: tearing fleet vb0123456789 down (Ctrl-C again to leave at once)');
    printer.onEvent({ event: 'step', fleetId, step: 'tearing-down', from: 'running', reason: 'interrupted (SIGINT)' });
    const shown = screen(io.stderr.text);
    expect(shown.slice(4, 6)).toEqual(['', 'SIGINT: tearing fleet vb0123456789 down (Ctrl-C again to leave at once)']);
    expect(shown[6]).toBe('fleet vb0123456789: 0/3 members done');
    expect(shown.slice(-2)).toEqual([`fleet ${fleetId}: tearing-down (interrupted (SIGINT))`, '']);

    const refused = { stdout: captured(false), stderr: captured(true) };
    fleetPrinter(refused, { json: false, autonomous: true }).finish();
    expect(refused.stderr.text).toBe('');
  });
});

describe('fleet compare off a terminal', () => {
  it('writes a line per event, and first done against last done once every member ended', () => {
    const io = { stdout: captured(false), stderr: captured(false) };
    play(STUDY, io);
    const lines = STUDY.map(([, e]) => textOf(e)!);
    const lastDone = STUDY.findIndex(([, e]) => e.event === 'member-done' && e.label === IO2);
    lines.splice(lastDone + 1, 0, 'first done: gp3-500g at 11m:33s; last done: io2-500g-16000iops at 15m:41s (04m:09s apart)');
    expect(io.stderr.text).toBe(`${lines.join('\n')}\n`);
    expect(io.stderr.text).not.toContain('\x1b');
  });

  it('--format json: a JSON line per event on stdout, the table on the terminal beside it, lines where stdout is that terminal too', () => {
    const piped = { stdout: captured(false), stderr: captured(true) };
    play(STUDY, piped, { json: true });
    expect(piped.stdout.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(STUDY.map(([, e]) => e));
    expect(screen(piped.stderr.text).filter((l) => TABLE_HEADER.test(l))).toHaveLength(1);

    const both = { stdout: captured(true), stderr: captured(true) };
    play(STUDY, both, { json: true });
    expect(both.stderr.text).not.toContain('\x1b');
    expect(both.stderr.text.split('\n')).toHaveLength(STUDY.length + 2);
  });
});

describe('the same table elsewhere', () => {
  it('--interactive: a member\'s last line beside its row, each ended by its result', () => {
    const io = { stdout: captured(false), stderr: captured(true) };
    play([
      [0, STUDY[0][1]],
      [60, { event: 'member-up', fleetId, label: GP3, endpoint: 'https://203.0.113.10:8443' }],
      [61, { event: 'progress', fleetId, label: GP3, line: 'test 3 of 8: read 3,012 IOPS 11.8 MiB/s' }],
      [62, { event: 'progress', fleetId, label: IO2, line: 'precondition: writing 500.0 GiB of /dev/nvme1n1' }],
      [300, { event: 'result', fleetId, label: GP3, status: 'finished', file: 'results/gp3.json' }],
      [310, { event: 'result', fleetId, label: IO2, status: 'finished', file: 'results/io2.json' }],
      [320, { event: 'result', fleetId, label: ST1, status: 'unreachable', error: 'its stack has no endpoint output' }],
    ], io, { autonomous: false });
    const shown = screen(io.stderr.text);
    expect(shown.slice(2)).toEqual([
      `[${ST1}] unreachable: its stack has no endpoint output`,
      `fleet ${fleetId}: 3/3 members done`,
      'member              step  loop  IOPS  p99  done  ETA',
      // Kept within the terminal (100 columns here), so that going back over it counts right.
      'gp3-500g                                   100%  done 05m:00s    test 3 of 8: read 3,012 IOPS 11.8…',
      'io2-500g-16000iops                         100%  done 05m:10s    precondition: writing 500.0 GiB o…',
      'st1-2t                                           failed 05m:20s',
      'first done: gp3-500g at 05m:00s; last done: st1-2t at 05m:20s (20.0 s apart)',
      '',
    ]);
  });

  it('fleet attach starts from the study\'s state: members done before it keep their row and their time', () => {
    const io = { stdout: captured(false), stderr: captured(true) };
    const member = (label: string, extra: object) => ({ label, stackName: `volbench-${fleetId}-${label}`, status: 'created', instanceId: 'i-0', ...extra });
    const study = {
      fleetId, region: 'us-east-1', createdAt: iso(0), status: 'up', study: { step: 'running', updatedAt: iso(600) },
      members: [
        member(GP3, { done: { label: GP3, status: 'ok', finished_at: iso(692.5) } }),
        member(IO2, { progress: (progress(IO2, 129, { test_index: 3, tests_total: 8, percent: 30, eta_s: 700, iops: 16_020 }) as { progress: MemberProgress }).progress }),
        member(ST1, { status: 'failed', reason: 'CREATE_FAILED' }),
      ],
    } as unknown as FleetState;
    vi.setSystemTime(T0 + 800_000);
    let first: string[] = [];
    play([[0, progress(IO2, 799, { test_index: 8, tests_total: 8, percent: 97, eta_s: 20, iops: 15_990, clat_p99_us: 530 })]], io, { study }, () => {
      first = screen(io.stderr.text);
    });
    expect(first).toEqual([
      `fleet ${fleetId}: running, 2/3 members done, eta 00m:19s`,
      'member              step  loop  IOPS    p99  done  ETA',
      'gp3-500g                                     100%  done 11m:33s',
      'io2-500g-16000iops   8/8         16k  530us   97%  00m:19s',
      // Its stack failed before this driver came: when is not known, and it is left out of first and last.
      'st1-2t                                             failed',
      '',
    ]);
  });
});
