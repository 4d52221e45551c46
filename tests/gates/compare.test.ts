/**
 * `volbench compare` and compareResults: pairing by job name and direction, the worse-beyond-
 * tolerance rule in both directions (throughput up, latency down), exit statuses, and reading
 * real fio output (run here twice, and fio's samples with text around the JSON) and volbench's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { compareResults, parseFioJsonText } from '../../src/compare/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { volbench } from '../helpers/cli.js';
import { REFERENCE_DIR, fioSample } from '../helpers/fio-samples.js';
import { requires } from '../helpers/requires.js';
import { ScratchDir } from '../helpers/run-fixtures.js';

const needs = requires('child', 'tmpfs', 'fio');

const scratch = new ScratchDir('compare');
afterAll(() => scratch.remove());

const NULL_RUN = ['--name=cmp', '--ioengine=null', '--size=16m', '--bs=4k', '--rw=randread', '--output-format=json'];

/** A copy of `doc` with its first job's read figures changed. */
function edited(doc: FioJson, change: (read: NonNullable<FioJson['jobs'][0]['read']>) => void): FioJson {
  const copy = structuredClone(doc);
  change(copy.jobs[0].read!);
  return copy;
}

function save(name: string, doc: FioJson | string): string {
  const path = scratch.path(name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

describe('compareResults', () => {
  const base = fioSample('02-randread-qd32-iouring.jsonplus.json');
  const p99 = base.jobs[0].read!.clat_ns.percentile!['99.000000'];

  it('pairs jobs by name and direction with A, B and the change of each metric', () => {
    const c = compareResults(base, edited(base, (r) => (r.iops *= 1.2)));
    expect(c.rows.map((r) => [r.job, r.dir, r.metric])).toEqual([
      ['randread-qd32', 'read', 'iops'], ['randread-qd32', 'read', 'bw'], ['randread-qd32', 'read', 'clat_ns.p99'],
    ]);
    expect(c.rows[0].changePct).toBeCloseTo(20, 6);
    expect(c.rows[2]).toMatchObject({ a: p99, b: p99, changePct: 0, worse: false });
    expect(c.worse).toBe(false);
  });

  it('calls fewer IOPS and more latency worse only beyond the tolerance', () => {
    const slower = edited(base, (r) => (r.iops *= 0.89));
    expect(compareResults(base, slower, { tolerancePct: 10 }).worse).toBe(true);
    expect(compareResults(base, slower, { tolerancePct: 12 }).worse).toBe(false);
    const laggier = edited(base, (r) => (r.clat_ns.percentile!['99.000000'] = p99 * 1.06));
    const c = compareResults(base, laggier, { metrics: ['clat_ns.p99'] });
    expect(c.rows).toMatchObject([{ metric: 'clat_ns.p99', worse: true, higherIsBetter: false }]);
    expect(compareResults(base, laggier, { metrics: ['clat_ns.p99'], tolerancePct: 7 }).worse).toBe(false);
  });

  it('names repeated job names in order and lists jobs that do not pair', () => {
    const clients = fioSample('14-client-server-2clients.json');
    const c = compareResults(clients, clients, { metrics: ['iops'] });
    expect(c.rows.map((r) => r.job)).toEqual(['cs-randread', 'cs-randread#2', 'All clients']);
    const more = structuredClone(base);
    more.jobs.push({ ...structuredClone(base.jobs[0]), jobname: 'extra' });
    expect(compareResults(base, more)).toMatchObject({ onlyInA: [], onlyInB: ['extra'], worse: false });
    expect(() => compareResults(clients, base)).toThrow(/no job of the second result has the name of a job of the first/);
    expect(() => compareResults(base, base, { metrics: ['iopz'] })).toThrow(/unknown metric 'iopz'/);
  });

  it('reads fio JSON with fio\'s text before and after it', () => {
    const text = readFileSync(join(REFERENCE_DIR, '..', 'n1-randrw-nj2-group_reporting.jsonplus+normal.txt'), 'utf8');
    expect(text.startsWith('{')).toBe(false);
    const doc = parseFioJsonText(text, 'n1');
    expect(doc.jobs.map((j) => j.jobname)).toEqual(['randrw-nj2']);
    expect(() => parseFioJsonText('fio: no jobs\n', 'x')).toThrow(/x holds no fio JSON result/);
  });
});

describe('volbench compare', () => {
  let fioA = '';
  let fioB = '';
  const fioMissing = needs.missing('fio');

  beforeAll(() => {
    if (fioMissing) return;
    // Two real fio runs of one job; io_bytes is exact, the rates are whatever the machine gives.
    const run = (): string => execFileSync('fio', NULL_RUN, { encoding: 'utf8' });
    fioA = save('fio-a.json', `fio: a warning fio printed first\n${run()}`);
    fioB = save('fio-b.json', run());
  });

  it.skipIf(fioMissing)('compares two real fio outputs (one with text before the JSON) and exits 0 within tolerance', async () => {
    const out = await volbench(['compare', fioA, fioB, '--metric', 'io_bytes,iops', '--tolerance', '100%']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^job +dir +metric +fio-a\.json +fio-b\.json +change/);
    expect(out.stdout).toMatch(/cmp +read +io_bytes +16777216B +16777216B +\+0\.0% +ok/);
    expect(out.stdout).toContain('no figure is worse in fio-b.json than in fio-a.json by more than 100%');
  });

  it.skipIf(fioMissing)('exits 1 when B is worse than A beyond the tolerance, marking the row', async () => {
    const a = parseFioJsonText(readFileSync(fioA, 'utf8'));
    const worse = save('fio-worse.json', edited(a, (r) => (r.iops /= 2)));
    const out = await volbench(['compare', fioA, worse, '--metric=iops', '--tolerance=10%']);
    expect(out.code, out.stderr).toBe(1);
    expect(out.stdout).toMatch(/cmp +read +iops +[\d.]+ +[\d.]+ +-50\.0% +WORSE/);
    expect(out.stdout).toContain('1 of 1 figures are worse in fio-worse.json than in fio-a.json by more than 10%');
  });

  it.skipIf(fioMissing)('compares volbench output with fio output of the same job', async () => {
    const run = await volbench(['run', ...NULL_RUN]);
    expect(run.code, run.stderr).toBe(0);
    const mine = save('volbench.json', run.stdout);
    const out = await volbench(['compare', fioA, mine, '--metric', 'io_bytes']);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toMatch(/cmp +read +io_bytes +16777216B +16777216B +\+0\.0% +ok/);
  });

  it('exits 2 on bad input', async () => {
    const one = save('one.json', fioSample('01-randread-qd32-iouring.json'));
    const other = save('other.json', fioSample('14-client-server-2clients.json'));
    const cases: Array<[string[], RegExp]> = [
      [[one], /needs two result files/],
      [[one, scratch.path('missing.json')], /cannot read/],
      [[one, other], /no job of the second result/],
      [[one, one, '--tolerance', 'lots'], /--tolerance takes a percentage/],
      [[one, one, '--metric', 'speed'], /unknown metric 'speed'/],
      [[one, save('text.json', 'no json here')], /holds no fio JSON result/],
    ];
    for (const [args, why] of cases) {
      const out = await volbench(['compare', ...args]);
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr).toMatch(why);
    }
  });
});
