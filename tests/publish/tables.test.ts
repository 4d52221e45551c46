/**
 * The Markdown and CSV reports of a fixed set of result files, cell by cell: suites map to
 * their columns by job name, other jobs get groups of their own, prices come from the result or
 * the pricing callback, and failed or cancelled runs read as such, never as zeros.
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, renderCsv, renderJson, renderMarkdown } from '../../src/publish/index.js';
import { csvRecords, mixedInputs, priceIo2 } from './helpers.js';

const TAIL = ['$ per 1,000 IOPS', '$ per MiB/s', 'Measured/entitled', 'Bound by', 'Status', 'Notes'];
const HEAD = ['Label', 'Type', 'Size GiB', 'Prov. IOPS', 'Prov. MiB/s', '$/month'];
const EMPTY6 = ['', '', '', '', '', ''];

const EXPECTED: Array<{ title: string; suite: string; header: string[]; rows: string[][] }> = [
  {
    title: 'Suite aws-ssd',
    suite: 'aws-ssd',
    header: [...HEAD, 'RND16K-Q1T16-write IOPS', 'RND16K-Q1T16-read IOPS', ...TAIL],
    rows: [
      ['gp3-a', 'gp3', '100', '3000', '125', '2000.00', '1423952', '1700752', '1.18', '', '566.92', 'volume', 'finished', "RND16K-Q1T16-write: burst cliff at 1 s (3,000 → 300 IOPS, not the catalog's full bucket)"],
      ['io2-b', 'io2', '50', '16000', '', '1046.25', '1425207', '1669158', '0.63', '', '', '', 'finished', 'RND16K-Q1T16-write: never left the burst (a full bucket lasts 2,000 s at this rate)'],
      ['aws-ssd-vol-c.json', '', '', '', '', '', '1435895', 'cancelled', '', '', '', '', 'cancelled', ''],
      ['run-d', '', '', '', '', '', 'failed', 'failed', '', '', '', '', 'failed: the target went away', ''],
    ],
  },
  {
    title: 'Suite kdiskmark',
    suite: 'kdiskmark',
    header: [...HEAD,
      'SEQ1M-Q8T1-read MiB/s', 'SEQ1M-Q1T1-read MiB/s', 'SEQ1M-Q1T1-read p50 µs', 'SEQ1M-Q1T1-read p99 µs',
      'RND4K-Q32T1-read IOPS', 'RND4K-Q1T1-read IOPS', 'RND4K-Q1T1-read p50 µs', 'RND4K-Q1T1-read p99 µs',
      'SEQ1M-Q8T1-write MiB/s', 'SEQ1M-Q1T1-write MiB/s', 'SEQ1M-Q1T1-write p50 µs', 'SEQ1M-Q1T1-write p99 µs',
      'RND4K-Q32T1-write IOPS', 'RND4K-Q1T1-write IOPS', 'RND4K-Q1T1-write p50 µs', 'RND4K-Q1T1-write p99 µs', ...TAIL],
    rows: [['kdiskmark-shm.json', '', '', '', '', '',
      '4000.0', '4000.0', '0.1', '0.1', '512000', '682667', '0.0', '0.0', '8000.0', '4000.0', '0.1', '0.1', '682667', '682667', '0.0', '0.0',
      '', '', '', '', 'finished', '']],
  },
  {
    title: 'Jobs mixed',
    suite: 'Jobs mixed',
    header: [...HEAD, 'mixed read IOPS', 'mixed read MiB/s', 'mixed read p50 µs', 'mixed read p99 µs',
      'mixed write IOPS', 'mixed write MiB/s', 'mixed write p50 µs', 'mixed write p99 µs', ...TAIL],
    rows: [['custom-randrw.json', ...EMPTY6.slice(1), '46492', '181.6', '43.8', '64.8', '46394', '181.2', '43.8', '64.3', '', '', '', '', 'finished', '']],
  },
  {
    title: 'Jobs randread-qd32',
    suite: 'Jobs randread-qd32',
    header: [...HEAD, 'randread-qd32 read IOPS', 'randread-qd32 read MiB/s', 'randread-qd32 read p50 µs', 'randread-qd32 read p99 µs', ...TAIL],
    rows: [['fio-own-randread.json', ...EMPTY6.slice(1), '55940', '218.5', '481.3', '2179.1', '', '', '', '', 'finished', '']],
  },
];

function markdownTables(md: string): Array<{ title: string; header: string[]; rows: string[][] }> {
  const out: Array<{ title: string; header: string[]; rows: string[][] }> = [];
  for (const line of md.split('\n')) {
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
    const tables = markdownTables(md);
    expect(tables.map((t) => t.title)).toEqual(EXPECTED.map((e) => e.title));
    tables.forEach((t, i) => {
      expect(t.header).toEqual(EXPECTED[i].header);
      expect(t.rows).toEqual(EXPECTED[i].rows);
    });
    // The footer names each price list by region and date: io2-b was priced in the region its
    // result names; gp3-a's price came with its result, which names no region.
    expect(md.trimEnd().endsWith('Prices: us-east-1 as of 2026-10-15; as of 2026-11-01 (region not recorded).')).toBe(true);
  });

  it('CSV has the same cells, one block per group with its own header and a Suite column', () => {
    const blocks: string[][][] = [[]];
    for (const r of csvRecords(renderCsv(report))) {
      if (r.length === 1 && r[0] === '') blocks.push([]);
      else blocks[blocks.length - 1].push(r);
    }
    expect(blocks).toHaveLength(EXPECTED.length);
    blocks.forEach((b, i) => {
      expect(b[0]).toEqual(['Suite', ...EXPECTED[i].header]);
      expect(b.slice(1)).toEqual(EXPECTED[i].rows.map((r) => [EXPECTED[i].suite, ...r]));
    });
  });

  it('JSON carries the unrounded numbers and the cell states, not zeros', () => {
    const doc = JSON.parse(renderJson(report));
    const ssd = doc.groups[0];
    expect(ssd.suite).toBe('aws-ssd');
    expect(ssd.rows[0].cells['RND16K-Q1T16-read:read:iops']).toEqual({ value: 1700751.614506, state: 'ok' });
    expect(ssd.rows[0].usd_per_1000_iops).toBeCloseTo(2000 / 1700.751614506, 9);
    expect(ssd.rows[1].price_as_of).toBe('2026-10-15');
    expect(ssd.rows[1].price_region).toBe('us-east-1');
    expect(doc.prices).toEqual([{ region: 'us-east-1', as_of: '2026-10-15' }, { region: null, as_of: '2026-11-01' }]);
    expect(ssd.rows[2].cells['RND16K-Q1T16-read:read:iops']).toEqual({ value: null, state: 'cancelled' });
    expect(ssd.rows[3].status).toBe('failed');
    expect(Object.values(ssd.rows[3].cells)).toEqual([{ value: null, state: 'failed' }, { value: null, state: 'failed' }]);
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
