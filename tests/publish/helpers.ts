/**
 * The fixed result files the report tests read (tests/fixtures/publish: real volbench runs of
 * the shipped suites on tmpfs, and one of fio's own documents), and the cloud facts a catalog
 * would have written into them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { FioJson } from '../../src/fio-output/fio-result.js';
import type { ReportInput } from '../../src/publish/index.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'publish');

export function fixture(name: string): FioJson {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as FioJson;
}

type Loose = Record<string, any>;

/**
 * A job's entitlement as a result of schema 3 states it: `iops` entitled (bound as said, by the
 * model unless said), held against what the fixture's job measured.
 */
export function entitlementOf(doc: FioJson, jobname: string, e: { iops: number; bound_by?: string; bound_by_source?: string; bs?: number } & Loose): Loose {
  const job = doc.jobs.find((j) => j.jobname === jobname)!;
  const dirs = [job.read, job.write].filter((d) => d && d.total_ios > 0);
  const measured = dirs.reduce((s, d) => s + d!.iops, 0);
  const bs = e.bs ?? Math.round(dirs.reduce((s, d) => s + d!.io_bytes, 0) / dirs.reduce((s, d) => s + d!.total_ios, 0));
  const { iops, bound_by: bound = 'volume-iops', bound_by_source: source = 'model', ...rest } = e;
  const rate = { iops, mibps: Math.round((iops * bs / 1048576) * 100) / 100, bound_by: bound === 'latency' || bound === 'below-entitlement' || bound === 'job-rate' ? 'volume-iops' : bound };
  return {
    entitled: rate, entitled_merged: rate, counted_io_kib: 256, counted_per_io: Math.max(1, Math.ceil(bs / 262144)),
    bs, measured_iops: measured, measured_bw_bytes: dirs.reduce((s, d) => s + d!.bw_bytes, 0),
    measured_vs_entitled: Math.round((measured / iops) * 1000) / 1000, bound_by: bound, bound_by_source: source, ...rest,
  };
}

/** Adds what the catalog and the burst analysis put in a result (they write these keys). */
export function withCloud(doc: FioJson, cloud: Loose, jobs: Record<string, Loose> = {}): FioJson {
  const out = structuredClone(doc) as FioJson & { volbench: Loose };
  (out.volbench as Loose).cloud = cloud;
  out.volbench.jobs.forEach((job: Loose) => Object.assign(job, jobs[job.jobname] ?? {}));
  return out;
}

/**
 * Four aws-ssd volumes: a priced gp3 with an entitlement and a burst cliff, an io2 the caller's
 * pricing callback prices, one without cloud facts whose read test was cancelled, and a run
 * that failed without a result; then a kdiskmark result, a job of its own and fio's own output.
 */
export function mixedInputs(): ReportInput[] {
  const docA = fixture('aws-ssd-vol-a.json');
  const burst = { points: 3, unit: 'IOPS', cliff: true, cliff_at_s: 1.4, level_before: 3000, level_after: 300.4, message: 'cliff',
    catalog: { volume: 'gp3 100 GiB', unit: 'IOPS', level: 3000, baseline: 300, bucket: 5.4e6, seconds_from_full: 2000, counted_per_io: 1, matches: false } };
  const a = withCloud(docA,
    { provider: 'aws', fleet: { id: 'f0', label: 'gp3-a' }, volume: { type: 'gp3', size_gib: 100, iops: 3000, throughput_mibps: 125 }, price: { usd_per_month: 2000, as_of: '2026-11-01', source: 'https://aws.amazon.com/ebs/pricing/' } },
    { 'RND16K-Q1T16-read': { entitlement: entitlementOf(docA, 'RND16K-Q1T16-read', { iops: 3000 }) }, 'RND16K-Q1T16-write': { analysis: { burst } } });
  const b = withCloud(fixture('aws-ssd-vol-b.json'), { provider: 'aws', region: 'us-east-1', volume: { type: 'io2', size_gib: 50, iops: 16000 }, fleet: { id: 'f1', label: 'io2-b' } },
    { 'RND16K-Q1T16-write': { analysis: { burst: { points: 3, unit: 'IOPS', cliff: false, never_left_burst: true, message: 'burst',
      catalog: { volume: 'io2 50 GiB', unit: 'IOPS', level: 3000, baseline: 300, bucket: 5.4e6, seconds_from_full: 2000, counted_per_io: 1, seconds_needed: 2000 } } } } });
  const c = structuredClone(fixture('aws-ssd-vol-c.json'));
  c.volbench!.jobs[1].cancelled = true;
  return [
    { source: 'results/aws-ssd-vol-a.json', result: a },
    { source: 'results/aws-ssd-vol-b.json', result: b },
    { source: 'results/aws-ssd-vol-c.json', result: c },
    { source: 'run-d', status: 'failed', error: 'the target went away', suite: 'aws-ssd', result: null },
    { source: 'results/kdiskmark-shm.json', result: fixture('kdiskmark-shm.json') },
    { source: 'results/custom-randrw.json', result: fixture('custom-randrw.json') },
    { source: 'results/fio-own-randread.json', result: fixture('fio-own-randread.json') },
  ];
}

/** What the catalog's priceVolume would answer for the io2 volume. */
export const priceIo2 = (v: { volume_type?: string }): { usd_per_month: number; as_of: string } | null =>
  v.volume_type === 'io2' ? { usd_per_month: 1046.25, as_of: '2026-10-15' } : null;

/** RFC 4180 fields: quotes around a field with a comma, doubled quotes inside. */
export function csvRecords(csv: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') record.push(field), (field = '');
    else if (c === '\r' && csv[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      (field = ''), (record = []), i++;
    } else field += c;
  }
  return records;
}
