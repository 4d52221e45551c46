/**
 * The shape of buildReport's output against real fio 3.33 documents of the same kind of run:
 * walking both, every key of fio's exists in ours, in the same order, with the same JSON type,
 * and ours has nothing more than json+'s `bins` and the top-level "volbench".
 */
import { describe, expect, it } from 'vitest';
import type { NativeDirResult, NativeJobResult } from '../../src/engine/native-types.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import { buildReport, type RunReportInput } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { dir, hist, jobOptions, lat, reportJob, result, runInput } from './inputs.js';
import { fixtureText, jsonDocuments } from './samples.js';

requires();

/** Objects whose keys depend on the run (options typed, percentile list, histogram). */
const FREE_KEYS = new Set(['job options', 'global options', 'percentile', 'bins']);

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

function walk(fio: unknown, ours: unknown, path: string, problems: string[]): void {
  if (jsonType(fio) !== jsonType(ours)) {
    problems.push(`${path}: fio ${jsonType(fio)}, ours ${jsonType(ours)}`);
    return;
  }
  if (Array.isArray(fio)) {
    const mine = ours as unknown[];
    if (fio.length !== mine.length) problems.push(`${path}: fio ${fio.length} items, ours ${mine.length}`);
    fio.forEach((item, i) => walk(item, mine[i], `${path}[${i}]`, problems));
    return;
  }
  if (jsonType(fio) !== 'object' || FREE_KEYS.has(path.split('.').pop() ?? '')) return;
  const fioObj = fio as Record<string, unknown>;
  const ourObj = ours as Record<string, unknown>;
  const fioKeys = Object.keys(fioObj);
  const extra = (k: string) => (k === 'bins' && !('bins' in fioObj)) || (path === '' && k === 'volbench');
  const ourKeys = Object.keys(ourObj).filter((k) => !extra(k));
  if (fioKeys.join() !== ourKeys.join()) problems.push(`${path}: fio keys [${fioKeys}], ours [${ourKeys}]`);
  for (const k of fioKeys) if (k in ourObj) walk(fioObj[k], ourObj[k], path ? `${path}.${k}` : k, problems);
}

function shapeProblems(sample: string, input: RunReportInput): string[] {
  const fio = JSON.parse(jsonDocuments(fixtureText(sample))[0]);
  const problems: string[] = [];
  walk(fio, JSON.parse(JSON.stringify(buildReport(input))), '', problems);
  return problems;
}

/** A direction that did I/O, with every latency and sample statistic populated. */
function busy(ios: number, slat = true): NativeDirResult {
  return dir({
    ioBytes: ios * 4096, totalIos: ios, runtimeNs: 2_000_400_000,
    slat: slat ? lat(ios, 5000, ios * 1e6, 2000, 9000) : lat(0, 0, 0, 0, 0),
    slatHist: hist([[5000, slat ? ios : 0]]),
    clat: lat(ios, 500_000, ios * 1e10, 200, 9e6), clatHist: hist([[500_000, ios]]),
    lat: lat(ios, 505_000, ios * 1e10, 80_000, 9e6), latHist: hist([[505_000, ios]]),
    bw: lat(3, 1000, 200, 900, 1100), iops: lat(3, 250, 50, 225, 275),
  });
}

function instance(rw: JobOptions['rw'], over: Partial<NativeJobResult> = {}): NativeJobResult {
  const reads = ['read', 'randread', 'rw', 'randrw'].includes(rw);
  const writes = ['write', 'randwrite', 'rw', 'randrw'].includes(rw);
  const trims = ['trim', 'randtrim'].includes(rw);
  return result({
    dirs: [reads ? busy(700) : dir(), writes ? busy(300) : dir(), trims ? busy(100) : dir()],
    iodepthLevel: [0, 0, 0, 0, 0, 1000, 0], iodepthSubmit: [0, 500, 0, 0, 0, 0, 0], iodepthComplete: [0, 500, 0, 0, 0, 0, 0],
    ...over,
  });
}

const VDA = [{ name: 'vda', read_ios: 1, write_ios: 1, read_merges: 0, write_merges: 0, read_ticks: 1, write_ticks: 1, in_queue: 2, util: 50 }];

function single(options: Partial<JobOptions>, over: Partial<NativeJobResult> = {}, input: Partial<RunReportInput> = {}): RunReportInput {
  const o = jobOptions(options);
  return runInput([reportJob(o, [instance(o.rw, over)])], { diskUtil: VDA, ...input });
}

describe("buildReport's key paths, order and types match fio 3.33's", () => {
  it('randread (sample 01)', () => {
    expect(shapeProblems('reference/01-randread-qd32-iouring.json', single({ rw: 'randread', iodepth: 32 }))).toEqual([]);
  });

  it('randread json+ with bins (sample 02)', () => {
    expect(shapeProblems('reference/02-randread-qd32-iouring.jsonplus.json', single({ rw: 'randread', iodepth: 32 }))).toEqual([]);
  });

  it('randrw numjobs=2 under group_reporting (sample 03)', () => {
    const o = jobOptions({ rw: 'randrw', numjobs: 2, group_reporting: true, iodepth: 16 });
    const input = runInput([reportJob(o, [instance('randrw'), instance('randrw')])], { diskUtil: VDA });
    expect(shapeProblems('reference/03-randrw7030-nj2-group_reporting.json', input)).toEqual([]);
  });

  it('randrw numjobs=2 without group_reporting: two entries (sample 04)', () => {
    const o = jobOptions({ rw: 'randrw', numjobs: 2, iodepth: 16 });
    const input = runInput([reportJob(o, [instance('randrw'), instance('randrw')])], { diskUtil: VDA });
    expect(shapeProblems('reference/04-randrw7030-nj2-no-group_reporting.json', input)).toEqual([]);
  });

  it('write with fsync: sync latencies with percentiles (sample 05)', () => {
    const sync = { totalIos: 300, lat: lat(300, 120_000, 300 * 1e8, 70_000, 3e6), latHist: hist([[120_000, 300]]) };
    const input = single({ rw: 'write', fsync: 1 }, { sync, dirs: [dir(), busy(300, false), dir()] });
    expect(shapeProblems('reference/05-write-fsync1-psync.json', input)).toEqual([]);
  });

  it('failed randtrim (sample 09)', () => {
    const failed = { error: 25, errorMessage: 'Inappropriate ioctl for device', dirs: [dir(), dir(), dir({ totalIos: 1 })] as NativeJobResult['dirs'] };
    expect(shapeProblems('reference/09-randtrim-iouring.json', single({ rw: 'randtrim', iodepth: 4 }, failed))).toEqual([]);
  });

  it('job file with [global] and two stonewall groups (sample 10)', () => {
    const a = jobOptions({ name: 'seqread-1m', rw: 'read', group_reporting: true, iodepth: 8 });
    const b = jobOptions({ name: 'randwrite-4k', rw: 'randwrite', group_reporting: true, numjobs: 2, stonewall: true, iodepth: 32 });
    const input = runInput([
      reportJob(a, [instance('read')], { ownOptions: [['rw', 'read']] }),
      reportJob(b, [instance('randwrite'), instance('randwrite')], { groupid: 1, ownOptions: [['rw', 'randwrite']] }),
    ], { diskUtil: VDA, globalOptions: [['size', '256M'], ['direct', '1']] });
    expect(shapeProblems('reference/10-jobfile-global-2groups.json', input)).toEqual([]);
  });

  it('unified_rw_reporting=mixed (sample 16)', () => {
    const input = single({ rw: 'randrw', unified_rw_reporting: 'mixed', iodepth: 16 });
    expect(shapeProblems('reference/16-randrw-unified_rw_reporting-mixed.json', input)).toEqual([]);
  });

  it('unified_rw_reporting=both (sample 17)', () => {
    const input = single({ rw: 'randrw', unified_rw_reporting: 'both', iodepth: 16 });
    expect(shapeProblems('reference/17-randrw-unified_rw_reporting-both.json', input)).toEqual([]);
  });

  it('slat, clat and lat percentiles with bins (sample 18)', () => {
    const input = single({ rw: 'randread', slat_percentiles: true, lat_percentiles: true, iodepth: 8 });
    expect(shapeProblems('reference/18-slat-clat-lat-percentiles-jsonplus.json', input)).toEqual([]);
  });

  it('description (sample 19)', () => {
    const input = single({ rw: 'randread', description: 'rate limited 2000 iops', iodepth: 4 });
    expect(shapeProblems('reference/19-rate_iops2000-description.json', input)).toEqual([]);
  });

  it('reports a mismatch when there is one (the walk itself works)', () => {
    const input = single({ rw: 'randread', iodepth: 32 });
    input.jobs[0].options.description = 'extra';
    expect(shapeProblems('reference/01-randread-qd32-iouring.json', input)).toEqual([
      expect.stringContaining('jobs[0]: fio keys'),
    ]);
  });
});
