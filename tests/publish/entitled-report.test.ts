/**
 * A table a storage engineer would sign. Broke: a randrw 50/50 job at exactly 1,500 + 1,500 on a
 * gp3 3,000 read 0.50 in both direction cells and twice the volume's $ per 1,000 IOPS (each
 * direction held to the whole job's entitlement); each row was priced at its own best test under
 * a header that named none, so a verdict's value was no cell of the table; a rehearsal's report
 * held emulated volumes to AWS's unscaled figures and said nothing of it; the binding limit was
 * never measured. Expected: a direction held to its share, one test per price column, every
 * verdict's value its winner's cell, the scale applied and said first, the limit measured where
 * the volume's statistics say.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { cloudFacts, parseVolume, priceVolume } from '../../src/cloud/index.js';
import { analyseBurst } from '../../src/findings/burst.js';
import type { FioResult, VolbenchEbsStats } from '../../src/fio-output/index.js';
import { runJobs } from '../../src/index.js';
import {
  buildPublishReport, catalogPricer, renderCsv, renderMarkdown, renderReportFiles, type ReportInput,
} from '../../src/publish/index.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { fixture } from './helpers.js';

requires('child', 'tmpfs', 'serial');

const dir = mkdtempSync(join('/dev/shm', 'volbench-truth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const on = (name: string, volume: string, extra: Record<string, unknown> = {}): FioResult =>
  cloudFacts(fixture(name) as FioResult, { volume: parseVolume(volume), instance: 'm6i.large', region: 'us-east-1', availabilityZone: 'us-east-1a', ...extra });

describe('a mix held to its share', () => {
  it('randrw 50/50 at 1,500 + 1,500 on gp3 3,000: about 1.0 in both direction cells, and the volume\'s $ per 1,000 IOPS', async () => {
    const file = join(dir, 'mixed.json');
    const run = await volbench(['run', '--name=mix', '--ioengine=null', '--rw=randrw', '--rwmixread=50', '--bs=16k', '--size=1g',
      '--rate_iops=1500', '--runtime=2s', '--time_based', '--output-format=json', `--output=${file}`, '--volume', 'gp3:500g']);
    expect(run.code, run.stderr).toBe(0);
    const out = await volbench(['report', file, '--format', 'json']);
    expect(out.code, out.stderr).toBe(0);
    const row = JSON.parse(out.stdout).groups[0].rows[0];
    for (const dir of ['read', 'write']) {
      const cell = row.cells[`mix:${dir}:iops`];
      expect(cell.entitled).toBe(1500);
      expect(cell.measured_vs_entitled).toBeGreaterThan(0.95);
      expect(cell.measured_vs_entitled).toBeLessThan(1.05);
      // MiB/s is held to the share of the bytes: half, the directions' I/O being alike.
      expect(row.cells[`mix:${dir}:mibps`].entitled).toBeCloseTo(46.88 / 2, 2);
    }
    // The job's own ratio stays: both directions against the whole 3,000.
    const price = row.cells['mix:usd_per_1000_iops'];
    expect(price).toMatchObject({ entitled: 3000, bound_by: 'volume-iops', bound_by_source: 'model' });
    expect(price.measured_vs_entitled).toBeCloseTo(price.measured / 3000, 9);
    const volume = priceVolume(parseVolume('gp3:500g'), 'us-east-1').total / 3;
    expect(price.value / volume).toBeGreaterThan(0.95);
    expect(price.value / volume).toBeLessThan(1.05);
  });
});

describe('one test per price column', () => {
  const inputs: ReportInput[] = [['a', 'gp3:500g'], ['b', 'gp3:500g:iops=6000:throughput=250'], ['c', 'io2:500g:iops=16000']]
    .map(([v, text]) => ({ source: `vol-${v}.json`, result: on(`aws-ssd-vol-${v}.json`, text) }));
  const report = buildPublishReport(inputs, { priceVolume: catalogPricer(), generatedAt: '2026-11-29T00:00:00.000Z' });

  it('every $ verdict of aws-ssd on three volumes is its winner\'s TEST:METRIC cell', () => {
    const priced = report.verdicts.filter((v) => v.metric.startsWith('usd_'));
    expect(priced.map((v) => `${v.test}:${v.metric}`)).toEqual(['RND16K-Q1T16-read:usd_per_1000_iops']);
    for (const v of priced) {
      const winner = report.groups[0].rows.find((r) => r.base_label === v.winner)!;
      expect(v.value).toBe(winner.cells[`${v.test}:${v.metric}`].value);
    }
    // The question's test names the price column, the same for every row.
    const g = report.groups[0];
    expect(g.price_tests.usd_per_1000_iops).toBe('RND16K-Q1T16-read');
    expect(g.rows.map((r) => r.priced_at.usd_per_1000_iops)).toEqual(Array(3).fill('RND16K-Q1T16-read'));
    const md = renderMarkdown(report);
    expect(md).toContain('| $ per 1,000 IOPS at RND16K-Q1T16-read | Measured / entitled at RND16K-Q1T16-read | Bound by at RND16K-Q1T16-read |');
  });

  it('every test cell carries entitled, measured_vs_entitled, bound_by and bound_by_source; tables show entitled beside measured', () => {
    for (const r of report.groups[0].rows) {
      for (const cell of Object.values(r.cells)) {
        expect(Object.keys(cell)).toEqual(expect.arrayContaining(['entitled', 'measured_vs_entitled', 'bound_by', 'bound_by_source']));
        expect(cell.bound_by_source).toBe('model');
      }
    }
    const io2 = report.groups[0].rows[2].cells['RND16K-Q1T16-read:read:iops'];
    expect(io2.entitled).toBe(16000);
    expect(renderMarkdown(report)).toContain(`${Math.round(io2.value!).toLocaleString('en-US')} / 16,000 (${io2.measured_vs_entitled!.toFixed(2)}×) ⚑`);
  });

  it('says what was measured under the title, and each price\'s confidence in words', () => {
    expect(report.title).toBe('aws-ssd on 3 volumes, m6i.large');
    expect(report.context).toMatchObject({
      volumes: ['gp3 500 GiB 3000/125', 'gp3 500 GiB 6000/250', 'io2 500 GiB 16000 IOPS'], instance_types: ['m6i.large'], zones: ['us-east-1a'],
      suites: ['aws-ssd'], rehearsal: null, ebs_stats: null,
    });
    const md = renderMarkdown(report).split('\n');
    expect(md[0]).toBe('# aws-ssd on 3 volumes, m6i.large');
    expect(md[2]).toMatch(/^gp3 500 GiB 3000\/125, gp3 500 GiB 6000\/250, io2 500 GiB 16000 IOPS · m6i\.large · us-east-1a · aws-ssd · \d+ s per test · 2026-11-2\d$/);
    // us-east-1 is read on AWS's page for gp3 (H); io2's tiers there are M.
    expect(report.groups[0].rows.map((r) => r.price_source)).toEqual(['list price, confirmed', 'list price, confirmed', 'secondary source']);
  });
});

describe('the scale travels with the results', () => {
  const scale = { rate: 0.25, time: 0.1 };

  it("every report scales entitlements by the results' emulation and opens with the rehearsal banner", async () => {
    const inputs = [{ source: 'gp3.json', result: on('aws-ssd-vol-a.json', 'gp3:500g', { emulation: scale }) }];
    expect(inputs[0].result.volbench.cloud?.emulation).toEqual(scale);
    // The result states AWS's figures; what it was held to is the scaled one.
    const e = inputs[0].result.volbench.jobs[1].entitlement!;
    expect(e.entitled.iops).toBe(3000);
    expect(e.measured_vs_entitled).toBeCloseTo(e.measured_iops / 750, 3);
    const { report, files } = await renderReportFiles(inputs, { priceVolume: catalogPricer(), command: 'npm run rehearse:fleet -- --out DIR' });
    expect(Object.keys(files)).toEqual(['report.json', 'report.md', 'report.html']);
    expect(JSON.parse(files['report.json']).context.rehearsal).toEqual(scale);
    expect(report.groups[0].rows[0].cells['RND16K-Q1T16-read:read:iops'].entitled).toBe(750);
    const banner = 'rehearsal on one host: rates ×0.25, buckets ×0.1; entitlements scaled to match; $ per IOPS and per MiB/s on the rates unscaled (measured ÷ 0.25)';
    expect(files['report.md'].split('\n').slice(0, 3)).toEqual(['# aws-ssd on gp3 500 GiB 3000/125, m6i.large (rehearsal)', '', `> **${banner}**`]);
    expect(files['report.html'].indexOf(banner)).toBeLessThan(files['report.html'].indexOf('Verdict'));
    expect(files['report.md']).toContain(' · npm run rehearse:fleet -- --out DIR');
  });

  it("an st1 bucket's life at the measured rate is in the emulation's units: ×0.1, not a scaled rate over AWS's bucket", async () => {
    const base = await runJobs({ jobs: [{ name: 'SEQ1M-Q8T1-read', ioengine: 'null', rw: 'read', bs: '1m', size: '1m' }] });
    const series = Array.from({ length: 10 }, (_, i) => ({ t_ms: (i + 1) * 1000, dur_ms: 1000, read: { iops: 125, bw_bytes: 125 * 1048576, clat_mean_ns: 1, clat_p99_ns: 1 } }));
    const doc = { ...base, volbench: { ...base.volbench, jobs: [{ ...base.volbench.jobs[0], series }], cloud: { provider: 'aws', volume: { type: 'st1', size_gib: 2048 } } } };
    const needed = (d: FioResult) => analyseBurst(d).volbench.jobs[0].analysis?.burst?.catalog?.seconds_needed;
    // AWS's st1 2 TiB at 125 MiB/s: 2 TiB of credits drained at 45 MiB/s above its 80.
    expect(needed(doc)).toBe(Math.ceil((2 * 1024 * 1024) / (125 - 80)));
    // Emulated at 0.25 / 0.1, 125 MiB/s is its full burst: the bucket (×0.025) drains above a baseline of 20.
    const emulated = { ...doc, volbench: { ...doc.volbench, cloud: { ...doc.volbench.cloud, emulation: scale } } };
    expect(needed(emulated)).toBe(Math.ceil((2 * 1024 * 1024 * 0.025) / (125 - 20)));
  });
});

describe('the binding limit measured', () => {
  const ebs = (volumeIops: number): VolbenchEbsStats => ({
    source: 'emulated', device: '/dev/nvme1n1', page: 'ebs', elapsed_us: 2e6,
    exceeded_us: { volume_iops: volumeIops * 2e6, volume_throughput: 0, instance_iops: 0, instance_throughput: 0 },
    exceeded_share: { volume_iops: volumeIops, volume_throughput: 0, instance_iops: 0, instance_throughput: 0 },
    read_ops: 1500, write_ops: 0, read_bytes: 1500 * 16384, write_bytes: 0, read_time_us: 1500 * 700, write_time_us: 0,
    read_io_latency_histogram: [{ lower_us: 256, upper_us: 512, count: 900 }, { lower_us: 512, upper_us: 1024, count: 590 }, { lower_us: 1024, upper_us: 2048, count: 10 }],
    write_io_latency_histogram: [],
  });

  it('bound_by from the statistics with the share of the time, the model beside it, EBS\'s p99 beside volbench\'s', () => {
    const raw = structuredClone(fixture('aws-ssd-vol-a.json')) as FioResult;
    raw.volbench.jobs[1] = { ...raw.volbench.jobs[1], ebs_stats: ebs(0.96) };
    const doc = cloudFacts(raw, { volume: parseVolume('gp3:500g') });
    expect(doc.volbench.jobs[1].entitlement).toMatchObject({ bound_by: 'volume-iops', bound_by_source: 'ebs-stats' });
    expect(doc.volbench.jobs[0].entitlement).toMatchObject({ bound_by_source: 'model' });
    const report = buildPublishReport([{ source: 'a.json', result: doc }]);
    const row = report.groups[0].rows[0];
    expect(row.cells['RND16K-Q1T16-read:read:iops']).toMatchObject({ bound_by: 'volume-iops', bound_by_source: 'ebs-stats', exceeded_share: 0.96 });
    // aws-ssd has no p99 column of its own: one is added where EBS's histogram can go beside it.
    const p99 = row.cells['RND16K-Q1T16-read:read:p99_us'];
    expect(p99.ebs_p99_us).toBe(1024);
    expect(p99.value).toBeGreaterThan(0);
    const md = renderMarkdown(report);
    // Measured, and the model's answer kept beside it (here the same: tmpfs is far above any gp3).
    expect(row.cells['RND16K-Q1T16-read:read:iops'].bound_by_model).toBe('volume-iops');
    expect(md).toMatch(/\| volume-iops \(measured: 96% of the time\) \|/);
    expect(md).toMatch(/ \(EBS 1,024\.0\) \|/);
    expect(report.context.ebs_stats).toBe('emulated');
    expect(renderCsv(report)).toContain('RND16K-Q1T16-read p99 µs EBS');
  });

  it('where the page could not be read, the report says so once', () => {
    const why = 'not an NVMe device: /dev/shm is tmpfs';
    const docs = ['a', 'b'].map((v) => {
      const d = on(`aws-ssd-vol-${v}.json`, 'gp3:500g');
      return { source: `${v}.json`, result: { ...d, volbench: { ...d.volbench, ebs_stats_unavailable: why } } };
    });
    const md = renderMarkdown(buildPublishReport(docs));
    expect(md.split(why).length - 1).toBe(1);
    expect(md).toContain(`EBS statistics not read (${why}): the binding limits there are the model's.`);
  });
});

describe('an old result', () => {
  it('of schema 2 is refused by volbench report, naming the field the schema wants', async () => {
    const doc = structuredClone(fixture('aws-ssd-vol-a.json')) as unknown as { volbench: { schema_version: number; jobs: Array<Record<string, unknown>> } };
    doc.volbench.schema_version = 2;
    doc.volbench.jobs[1].entitlement = { bs: 16384, expected_iops: 3000, expected_bw_bytes: 49152000, measured_iops: 1, measured_bw_bytes: 1, ratio: 0, bound_by: 'latency' };
    const file = join(dir, 'v2.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = await volbench(['report', file]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${file}: volbench.jobs.1.entitlement.entitled: `);
    expect(out.stderr).toContain('(written as schema_version 2)');
  });
});
