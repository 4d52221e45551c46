/**
 * The verdict lines and the per-test entitlement of a report, from real aws-ssd results (four
 * runs on tmpfs) labelled as the volumes `run --volume` names: the winner of each of the suite
 * manifest's questions, by how much, over how many repeats, "no clear winner" when the
 * runner-up lies within the winner's range, `--rank-by`, and a figure above what the volume
 * allows flagged with its likely cause.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, catalogPricer, renderHtml, renderJson, renderMarkdown, verdictText, type ReportInput } from '../../src/publish/index.js';
import { aboveCause, isBuffered } from '../../src/fio-output/entitled.js';
import { requires } from '../helpers/requires.js';
import { entitlementOf, fixture, withCloud } from './helpers.js';

requires();

const GP3 = { type: 'gp3', size_gib: 100, iops: 3000, throughput_mibps: 125 };
const IO2 = { type: 'io2', size_gib: 100, iops: 16000 };

/** The four runs (RND16K-Q1T16-read IOPS: a 1,700,752; b 1,669,158; c 1,639,130; d 1,630,293) on the volumes given. */
function runsOn(volumes: Array<Record<string, unknown>>, cloud: Record<string, unknown> = {}): ReportInput[] {
  return ['a', 'b', 'c', 'd'].map((v, i) => ({
    source: `aws-ssd-vol-${v}.json`,
    result: withCloud(fixture(`aws-ssd-vol-${v}.json`), { provider: 'aws', region: 'us-east-1', volume: volumes[i], ...cloud }),
  }));
}

describe('verdicts', () => {
  it('one per question of the suite manifest, the winner with its repeats, range and lead', () => {
    const report = buildPublishReport(runsOn([GP3, GP3, IO2, IO2]), { priceVolume: catalogPricer() });
    const iops = report.verdicts.find((v) => v.question === 'most IOPS at 16 KiB random reads')!;
    expect(iops).toMatchObject({
      suite: 'aws-ssd', test: 'RND16K-Q1T16-read', metric: 'iops', better: 'higher',
      winner: 'gp3 100 GiB 3000/125', n: 2, range: [1669157.816377, 1700751.614506], runner_up: 'io2 100 GiB 16000 IOPS', clear: true,
      // These results carry no entitlement: nothing to flag.
      flag: null,
    });
    expect(iops.value).toBeCloseTo((1700751.614506 + 1669157.816377) / 2, 3);
    expect(iops.ratio).toBeCloseTo(iops.value / ((1639130 + 1630293) / 2), 3);
    expect(report.verdicts.map((v) => v.question)).toEqual([
      'lowest $ per 1,000 IOPS at 16 KiB random reads', 'most IOPS at 16 KiB random reads', 'most IOPS at 16 KiB random writes',
    ]);
    const cheapest = report.verdicts[0];
    expect(cheapest.winner).toBe('gp3 100 GiB 3000/125');
    expect(cheapest.metric).toBe('usd_per_1000_iops');
    // The text a reader sees above the tables, in every format.
    const line = verdictText(iops);
    expect(line).toMatch(/^most IOPS at 16 KiB random reads: gp3 100 GiB 3000\/125, 1,684,955 IOPS \(n=2, 1,669,158 IOPS – 1,700,752 IOPS\), 1\.03× more than io2 100 GiB 16000 IOPS \(1,634,712 IOPS\)$/);
    const md = renderMarkdown(report);
    expect(md.indexOf(`- ${line}`)).toBeGreaterThanOrEqual(0);
    expect(md.indexOf('## Verdict')).toBeLessThan(md.indexOf('## Suite aws-ssd'));
    expect(JSON.parse(renderJson(report)).verdicts).toHaveLength(3);
  });

  it('says no clear winner when the runner-up lies within the winner’s range', () => {
    const report = buildPublishReport(runsOn([GP3, IO2, GP3, IO2]));
    const iops = report.verdicts.find((v) => v.question === 'most IOPS at 16 KiB random reads')!;
    expect(iops).toMatchObject({ winner: 'gp3 100 GiB 3000/125', n: 2, runner_up: 'io2 100 GiB 16000 IOPS', clear: false });
    expect(verdictText(iops)).toMatch(/^most IOPS at 16 KiB random reads: no clear winner: gp3 100 GiB 3000\/125, /);
  });

  it('ranks by the figure --rank-by names, each of the suite’s tests once', () => {
    const report = buildPublishReport(runsOn([GP3, GP3, IO2, IO2]), { priceVolume: catalogPricer(), rankBy: 'usd_per_1000_iops' });
    expect(report.verdicts.map((v) => [v.question, v.metric, v.better])).toEqual([
      ['lowest $ per 1,000 IOPS at RND16K-Q1T16-read', 'usd_per_1000_iops', 'lower'],
      ['lowest $ per 1,000 IOPS at RND16K-Q1T16-write', 'usd_per_1000_iops', 'lower'],
    ]);
    expect(verdictText(report.verdicts[0])).toMatch(/ cheaper than io2 100 GiB 16000 IOPS \(\$[\d.]+ per 1,000 IOPS\)/);
  });

  it('labels repeats of one volume apart by their targets, keeping what they share', () => {
    const report = buildPublishReport(runsOn([GP3, GP3, IO2, IO2]));
    const rows = report.groups[0].rows;
    expect(rows.map((r) => r.base_label)).toEqual(['gp3 100 GiB 3000/125', 'gp3 100 GiB 3000/125', 'io2 100 GiB 16000 IOPS', 'io2 100 GiB 16000 IOPS']);
    expect(rows.map((r) => r.label)).toEqual([
      'gp3 100 GiB 3000/125 · /dev/shm/vbpub-a-7ZPg', 'gp3 100 GiB 3000/125 · /dev/shm/vbpub-b-gx9E',
      'io2 100 GiB 16000 IOPS · /dev/shm/vbpub-c-XrfQ', 'io2 100 GiB 16000 IOPS · /dev/shm/vbpub-d-kR7n',
    ]);
    // A run of one volume on one target twice: a short run id tells them apart.
    const twice = buildPublishReport([
      { source: '9b1f9d1d-1111-4000-8000-000000000001', result: runsOn([GP3])[0].result },
      { source: '4c3605cc-2222-4000-8000-000000000002', result: runsOn([GP3])[0].result },
    ]);
    expect(twice.groups[0].rows.map((r) => r.label)).toEqual(['gp3 100 GiB 3000/125 · 9b1f9d1d', 'gp3 100 GiB 3000/125 · 4c3605cc']);
  });
});

describe('measured against entitled, per test', () => {
  it('flags each cell above 1.10 with its likely cause, in JSON, Markdown and HTML', async () => {
    const entitled = (name: string) => ({ 'RND16K-Q1T16-read': { entitlement: entitlementOf(fixture(name), 'RND16K-Q1T16-read', { iops: 3000 }) } });
    const docs = [
      { source: 'local.json', result: withCloud(fixture('aws-ssd-vol-a.json'), { provider: 'aws', volume: GP3 }, entitled('aws-ssd-vol-a.json')) },
      // Identified as the volume (it carries the id), through O_DIRECT: the model is what is wrong.
      { source: 'found.json', result: withCloud(fixture('aws-ssd-vol-b.json'), { provider: 'aws', volume: { ...GP3, id: 'vol-0abc' } }, entitled('aws-ssd-vol-b.json')) },
    ];
    const report = buildPublishReport(docs);
    const doc = JSON.parse(renderJson(report));
    const cell = (row: number) => doc.groups[0].rows[row].cells['RND16K-Q1T16-read:read:iops'];
    expect(cell(0)).toMatchObject({ entitled: 3000, bound_by: 'volume-iops', flag: 'not the named volume' });
    expect(cell(0).measured_vs_entitled).toBeCloseTo(1700751.614506 / 3000, 6);
    expect(cell(1)).toMatchObject({ entitled: 3000, bound_by: 'volume-iops', flag: 'above the model' });
    // The write test has no entitlement in these results: nothing to hold it against.
    expect(doc.groups[0].rows[0].cells['RND16K-Q1T16-write:write:iops']).toMatchObject({ entitled: null, measured_vs_entitled: null, flag: null });
    expect(doc.groups[0].rows[0].priced_at.usd_per_1000_iops).toBe('RND16K-Q1T16-read');
    const md = renderMarkdown(report);
    expect(md).toContain('| 1,700,752 / 3,000 (566.92×) ⚑ |');
    expect(md).toContain('not the named volume: RND16K-Q1T16-read IOPS 566.92×');
    expect(md).toContain('above the model: RND16K-Q1T16-read IOPS 556.39×');
    expect(md).toContain('| 1,700,752 / 3,000 IOPS (566.92×) ⚑ | volume-iops (model) |');
    const html = await renderHtml(report);
    expect(html).toContain('<td class="flagged">1,700,752 / 3,000 (566.92×) ⚑</td>');
    // The verdict read from a flagged figure says so.
    const iops = report.verdicts.find((v) => v.metric === 'iops' && v.test === 'RND16K-Q1T16-read')!;
    expect(iops.flag).toBe('not the named volume');
    expect(verdictText(iops)).toMatch(/ ⚑ above what the volume allows \(not the named volume\)$/);
  });

  it('names the page cache for a buffered job, before the model', () => {
    const doc = fixture('aws-ssd-vol-a.json');
    expect(isBuffered(doc.jobs[0], doc)).toBe(false);
    const buffered = structuredClone(doc);
    buffered['global options'] = { ...buffered['global options'], direct: '0' };
    expect(isBuffered(buffered.jobs[0], buffered)).toBe(true);
    delete buffered['global options']!.direct;
    // fio's default is buffered.
    expect(isBuffered(buffered.jobs[0], buffered)).toBe(true);
    expect([aboveCause(false, true), aboveCause(true, true), aboveCause(true, false)]).toEqual(['not the named volume', 'page cache', 'above the model']);
  });
});
