/**
 * The Markdown and CSV reports of a fixed set of result files, cell by cell: suites map to
 * their columns by job name, other jobs get groups of their own, prices come from the result or
 * the pricing callback, and failed or cancelled runs read as such, never as zeros.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, renderCsv, renderJson, renderMarkdown } from '../../src/publish/index.js';
import { requires } from '../helpers/requires.js';
import { csvRecords, mixedInputs, priceIo2 } from './helpers.js';

requires();

// The label and the price/performance columns lead, each at the suite's price test (the same
// for every row); volume columns follow, with the price's confidence in words; then the tests,
// measured beside entitled; a column no row fills (prices, flags, notes without a volume) is left out.
const AT = 'at RND16K-Q1T16-read';
const LEAD = ['Label', `$ per 1,000 IOPS ${AT}`, `Measured / entitled ${AT}`, `Bound by ${AT}`];
const VOLUME = ['Type', 'Size GiB', 'Prov. IOPS', 'Prov. MiB/s', '$/month', 'Price'];

const EXPECTED: Array<{ title: string; suite: string; header: string[]; rows: string[][] }> = [
  {
    title: 'Suite aws-ssd',
    suite: 'aws-ssd',
    header: [...LEAD, ...VOLUME, 'RND16K-Q1T16-write IOPS', 'RND16K-Q1T16-read IOPS', 'Status', 'Flags', 'Notes', 'Source'],
    rows: [
      // Labelled by the volume (not the fleet's label, gp3-a); 1.7 M IOPS on a 3,000 IOPS gp3 is
      // flagged, measured beside entitled, and bound by what the model says.
      ['gp3 100 GiB 3000/125', '1.18', '1,700,752 / 3,000 IOPS (566.92×) ⚑', 'volume-iops (model)', 'gp3', '100', '3000', '125', '2000.00', 'list price, confirmed',
        '1,423,952', '1,700,752 / 3,000 (566.92×) ⚑', 'finished',
        'not the named volume: RND16K-Q1T16-read IOPS 566.92×', "RND16K-Q1T16-write: burst cliff at 1 s (3,000 → 300 IOPS, not the catalog's full bucket)", 'results/aws-ssd-vol-a.json'],
      ['io2 50 GiB 16000 IOPS', '0.63', '', '', 'io2', '50', '16000', '', '1046.25', 'list price, confirmed', '1,425,207', '1,669,158', 'finished', '',
        'RND16K-Q1T16-write: never left the burst (a full bucket lasts 2,000 s at this rate)', 'results/aws-ssd-vol-b.json'],
      // No volume: the target it ran on (the directory its jobs' files share).
      ['/dev/shm/vbpub-c-XrfQ', '', '', '', '', '', '', '', '', '', '1,435,895', 'cancelled', 'cancelled', '', '', 'results/aws-ssd-vol-c.json'],
      ['run-d', '', '', '', '', '', '', '', '', '', 'failed', 'failed', 'failed: the target went away', '', '', 'run-d'],
    ],
  },
  {
    title: 'Suite kdiskmark',
    suite: 'kdiskmark',
    header: ['Label',
      'SEQ1M-Q8T1-read MiB/s', 'SEQ1M-Q1T1-read MiB/s', 'SEQ1M-Q1T1-read p50 µs', 'SEQ1M-Q1T1-read p99 µs',
      'RND4K-Q32T1-read IOPS', 'RND4K-Q1T1-read IOPS', 'RND4K-Q1T1-read p50 µs', 'RND4K-Q1T1-read p99 µs',
      'SEQ1M-Q8T1-write MiB/s', 'SEQ1M-Q1T1-write MiB/s', 'SEQ1M-Q1T1-write p50 µs', 'SEQ1M-Q1T1-write p99 µs',
      'RND4K-Q32T1-write IOPS', 'RND4K-Q1T1-write IOPS', 'RND4K-Q1T1-write p50 µs', 'RND4K-Q1T1-write p99 µs', 'Status', 'Source'],
    rows: [['/dev/shm/vbpub-k-mDbA/kdiskmark.tmp',
      '4,000.0', '4,000.0', '0.1', '0.1', '512,000', '682,667', '0.0', '0.0', '8,000.0', '4,000.0', '0.1', '0.1', '682,667', '682,667', '0.0', '0.0',
      'finished', 'results/kdiskmark-shm.json']],
  },
  {
    title: 'Jobs mixed',
    suite: 'Jobs mixed',
    header: ['Label', 'mixed read IOPS', 'mixed read MiB/s', 'mixed read p50 µs', 'mixed read p99 µs',
      'mixed write IOPS', 'mixed write MiB/s', 'mixed write p50 µs', 'mixed write p99 µs', 'Status', 'Source'],
    rows: [['/dev/shm/vbpub-k-mDbA/mixed.0.0', '46,492', '181.6', '43.8', '64.8', '46,394', '181.2', '43.8', '64.3', 'finished', 'results/custom-randrw.json']],
  },
  {
    title: 'Jobs randread-qd32',
    suite: 'Jobs randread-qd32',
    header: ['Label', 'randread-qd32 read IOPS', 'randread-qd32 read MiB/s', 'randread-qd32 read p50 µs', 'randread-qd32 read p99 µs', 'Status', 'Source'],
    // fio's own JSON names no target: the file it came from.
    rows: [['fio-own-randread', '55,940', '218.5', '481.3', '2,179.1', 'finished', 'results/fio-own-randread.json']],
  },
];

function markdownTables(md: string): Array<{ title: string; header: string[]; rows: string[][] }> {
  const out: Array<{ title: string; header: string[]; rows: string[][] }> = [];
  for (const line of md.split('\n')) {
    if (line.startsWith('# ')) continue;
    if (line.startsWith('## ')) out.push({ title: line.slice(3), header: [], rows: [] });
    else if (line.startsWith('|')) {
      const cells = line.slice(2, -2).split(' | ').map((c) => c.trim());
      const t = out[out.length - 1];
      if (t.header.length === 0) t.header = cells;
      else if (!cells.every((c) => /^-+:?$/.test(c))) t.rows.push(cells);
    }
  }
  return out;
}

describe('report tables', () => {
  const report = buildPublishReport(mixedInputs(), { priceVolume: priceIo2, generatedAt: '2026-11-24T00:00:00.000Z' });

  it('Markdown has one table per suite or job set, every cell as expected', () => {
    const md = renderMarkdown(report);
    const tables = markdownTables(md).filter((t) => t.title !== 'Verdict');
    expect(tables.map((t) => t.title)).toEqual(EXPECTED.map((e) => e.title));
    expect(md.split('\n')[0]).toBe('# aws-ssd and kdiskmark on 2 volumes');
    tables.forEach((t, i) => {
      expect(t.header).toEqual(EXPECTED[i].header);
      expect(t.rows).toEqual(EXPECTED[i].rows);
    });
    // The footer names each price list by region and date: io2-b was priced in the region its
    // result names; gp3-a's price came with its result, which names no region.
    expect(md.trimEnd().endsWith("Prices: us-east-1 as of 2026-10-15; as of 2026-11-01 (region not recorded); $/month and $ per unit are the volume alone, 730 h a month (AWS's basis, 8,760 / 12).")).toBe(true);
  });

  // Broke: a price the catalog holds at M or L (GCP and Azure, regions not read on AWS's page)
  // printed under the table as plainly as an H one. Expected: the footer says which lists are not H.
  it("says under the table when a price list is not read on the provider's page", () => {
    const unsure = buildPublishReport(mixedInputs(), {
      priceVolume: (v) => (v.volume_type === 'io2' ? { usd_per_month: 1046.25, as_of: '2026-10-15', confidence: 'L' as const } : null),
      generatedAt: '2026-11-24T00:00:00.000Z',
    });
    expect(unsure.prices.find((p) => p.region === 'us-east-1')).toMatchObject({ confidence: 'L' });
    expect(renderMarkdown(unsure)).toContain('Prices: us-east-1 as of 2026-10-15 (confidence L: not verified); as of 2026-11-01 (region not recorded);');
    expect(renderMarkdown(report)).not.toContain('confidence');
    // Each row says how sure its own price is, in a reader's words.
    expect(unsure.groups[0].rows.map((r) => r.price_source)).toEqual(['list price, confirmed', 'unverified', null, null]);
  });

  it('CSV has a block per group with its own header and a Suite column, every figure a number of its own', () => {
    const blocks: string[][][] = [[]];
    for (const r of csvRecords(renderCsv(report))) {
      if (r.length === 1 && r[0] === '') blocks.push([]);
      else blocks[blocks.length - 1].push(r);
    }
    expect(blocks).toHaveLength(EXPECTED.length);
    expect(blocks.map((b) => b[1][0])).toEqual(EXPECTED.map((e) => e.suite));
    const [ssd] = blocks;
    expect(ssd[0]).toEqual(['Suite', 'Label', `$ per 1,000 IOPS ${AT}`, `Measured ${AT}`, `Entitled ${AT}`, `Unit ${AT}`, `Measured / entitled ${AT}`,
      `Bound by ${AT}`, `Bound by source ${AT}`, ...VOLUME, 'RND16K-Q1T16-write IOPS', 'RND16K-Q1T16-read IOPS',
      'RND16K-Q1T16-read IOPS entitled', 'RND16K-Q1T16-read IOPS measured/entitled', 'Status', 'Flags', 'Notes', 'Source']);
    const gp3 = Object.fromEntries(ssd[0].map((h, i) => [h, ssd[1][i]]));
    expect(gp3).toMatchObject({
      [`$ per 1,000 IOPS ${AT}`]: '1.176', [`Measured ${AT}`]: '1700751.6145', [`Entitled ${AT}`]: '3000', [`Unit ${AT}`]: 'IOPS',
      [`Measured / entitled ${AT}`]: '566.9172', [`Bound by ${AT}`]: 'volume-iops', [`Bound by source ${AT}`]: 'model',
      'RND16K-Q1T16-read IOPS': '1700751.6145', 'RND16K-Q1T16-read IOPS entitled': '3000',
    });
    // Every figure is a number, never a sentence ("0.24 at …"): a spreadsheet sorts and charts them.
    for (const h of ssd[0].filter((x) => /IOPS|Measured|Entitled|\$/.test(x) && !/source|Bound/.test(x))) {
      for (const row of ssd.slice(1)) expect(row[ssd[0].indexOf(h)], h).toMatch(/^(-?\d+(\.\d+)?(e-?\d+)?)?$/);
    }
    expect(blocks[3][1]).toEqual(['Jobs randread-qd32', 'fio-own-randread', '55939.5302', '218.5138', '481.28', '2179.072', 'finished', 'results/fio-own-randread.json']);
  });

  it('JSON carries the unrounded numbers and the cell states, not zeros', () => {
    const doc = JSON.parse(renderJson(report));
    const ssd = doc.groups[0];
    expect(ssd.suite).toBe('aws-ssd');
    expect(ssd.price_tests).toEqual({ usd_per_1000_iops: 'RND16K-Q1T16-read', usd_per_mibps: null });
    // Each test cell carries what the volume allows that test, the ratio, what bound it and where that answer comes from.
    expect(ssd.rows[0].cells['RND16K-Q1T16-read:read:iops']).toEqual({
      value: 1700751.614506, state: 'ok', entitled: 3000, entitled_merged: 3000,
      measured_vs_entitled: 1700751.614506 / 3000, bound_by: 'volume-iops', bound_by_source: 'model', flag: 'not the named volume',
    });
    // The price cell at the suite's test, and the test every price column reads.
    expect(ssd.rows[0].priced_at).toEqual({ usd_per_1000_iops: 'RND16K-Q1T16-read', usd_per_mibps: null });
    expect(ssd.rows[0].cells['RND16K-Q1T16-read:usd_per_1000_iops'].value).toBeCloseTo(2000 / 1700.751614506, 9);
    expect(ssd.rows[0]).not.toHaveProperty('usd_per_1000_iops');
    expect(ssd.rows[1].price_as_of).toBe('2026-10-15');
    expect(ssd.rows[1].price_region).toBe('us-east-1');
    expect(doc.prices).toEqual([{ region: 'us-east-1', as_of: '2026-10-15' }, { region: null, as_of: '2026-11-01' }]);
    const none = { entitled: null, entitled_merged: null, measured_vs_entitled: null, bound_by: null, bound_by_source: null, flag: null };
    expect(ssd.rows[2].cells['RND16K-Q1T16-read:read:iops']).toEqual({ value: null, state: 'cancelled', ...none });
    expect(ssd.rows[3].status).toBe('failed');
    expect(Object.values(ssd.rows[3].cells)).toEqual(Array(6).fill({ value: null, state: 'failed', ...none }));
    expect(ssd.rows[0].details).toBeUndefined();
  });

  it('without prices or a pricing callback the $ columns stay empty', () => {
    const plain = buildPublishReport(mixedInputs().slice(1, 2));
    expect(plain.groups[0].rows[0].usd_per_month).toBeNull();
    expect(plain.price_dates).toEqual([]);
    expect(plain.prices).toEqual([]);
    expect(renderMarkdown(plain)).toContain('No prices: the $ columns are empty.');
  });

  it('a named suite found by its job names when the result does not say which it is', () => {
    const inputs = mixedInputs();
    const doc = structuredClone(inputs[2].result!);
    delete doc.volbench!.suite;
    delete (doc as { volbench?: unknown }).volbench;
    const report2 = buildPublishReport([{ source: 'fio-run.json', result: doc }]);
    expect(report2.groups.map((g) => g.suite)).toEqual(['aws-ssd']);
  });
});
