/**
 * `volbench report` as a user runs it: files in, a report file out in each format; input that
 * is not fio JSON is refused naming the file and what was expected.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { parseVolume, priceVolume } from '../../src/cloud/index.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { FIXTURES } from './helpers.js';

const needs = requires('child', 'tmpfs');

const dir = mkdtempSync(join(tmpdir(), 'volbench-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SSD = ['a', 'b', 'c', 'd'].map((v) => join(FIXTURES, `aws-ssd-vol-${v}.json`));

describe('volbench report', () => {
  it('writes Markdown to stdout with a row per volume, named by its target or --label, its file beside it', async () => {
    const out = await volbench(['report', ...SSD, '--label', 'first', '--label', 'second']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const rows = out.stdout.split('\n').filter((l) => l.includes('aws-ssd-vol-'));
    // No volume named: the directory the suite ran in; --label names the files in order.
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| first', '| second', '| /dev/shm/vbpub-c-XrfQ', '| /dev/shm/vbpub-d-kR7n']);
    expect(rows.map((r) => r.split(' | ').at(-1))).toEqual(SSD.map((f) => `${f} |`));
    // The suite's questions, answered above the table.
    expect(out.stdout.indexOf('## Verdict')).toBeLessThan(out.stdout.indexOf('## Suite aws-ssd'));
    expect(out.stdout).toMatch(/^- most IOPS at 16 KiB random reads: first, 1,700,752 IOPS, 1\.02× more than second \(1,669,158 IOPS\)$/m);
  });

  it('refuses more labels than files, an unknown --rank-by and --units, naming the flag', async () => {
    const labels = await volbench(['report', SSD[0], '--label', 'a', '--label', 'b']);
    expect(labels.code).toBe(2);
    expect(labels.stderr).toContain('--label names the RESULT files in order: 2 labels for 1 files');
    const rank = await volbench(['report', SSD[0], '--rank-by', 'speed']);
    expect(rank.code).toBe(2);
    expect(rank.stderr).toContain("--rank-by takes iops, mibps, p50_us, p99_us, usd_per_1000_iops, usd_per_mibps, not 'speed'");
    const units = await volbench(['report', SSD[0], '--units', 'GB/s']);
    expect(units.code).toBe(2);
    expect(units.stderr).toContain("--units takes MiB/s or MB/s, not 'GB/s'");
  });

  it('writes each format to --out', async () => {
    for (const format of ['md', 'csv', 'json', 'html']) {
      const file = join(dir, `report.${format}`);
      const out = await volbench(['report', ...SSD, join(FIXTURES, 'kdiskmark-shm.json'), '--format', format, '--out', file]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe('');
      const text = readFileSync(file, 'utf8');
      if (format === 'json') expect(JSON.parse(text).groups.map((g: { suite: string }) => g.suite)).toEqual(['aws-ssd', 'kdiskmark']);
      if (format === 'html') expect(text.startsWith('<!doctype html>')).toBe(true);
      if (format === 'csv') expect(text.split('\r\n')[0].startsWith('Suite,Label,')).toBe(true);
    }
  });

  it('prices a run --volume result from the catalog, in --region when the result names none', async () => {
    const file = join(dir, 'gp3.json');
    const run = await volbench(['run', '--name=rr', `--filename=${join(dir, 't.bin')}`, '--size=8m', '--rw=randread', '--bs=4k', '--direct=1',
      '--runtime=300ms', '--time_based', '--output-format=json', `--output=${file}`, '--volume', 'gp3:size=100g,iops=4000', '--instance', 'm6i.large']);
    expect(run.code, run.stderr).toBe(0);
    for (const region of [undefined, 'eu-west-1']) {
      const out = await volbench(['report', file, '--format', 'json', ...(region ? ['--region', region] : [])]);
      expect(out.code, out.stderr).toBe(0);
      const row = JSON.parse(out.stdout).groups[0].rows[0];
      const price = priceVolume(parseVolume('gp3:100g:iops=4000'), region ?? 'us-east-1');
      expect(row).toMatchObject({ type: 'gp3', size_gib: 100, provisioned_iops: 4000, usd_per_month: price.total, price_as_of: price.as_of, price_region: price.region });
      // An ad hoc job is priced at its own test, its cell carrying the entitlement and what bound it.
      expect(row.priced_at).toEqual({ usd_per_1000_iops: 'rr', usd_per_mibps: 'rr' });
      const cell = row.cells['rr:usd_per_1000_iops'];
      expect(cell.bound_by).toMatch(/^(latency|volume-iops|instance-iops|below-entitlement)$/);
      expect(cell).toMatchObject({ entitled: 4000, bound_by_source: 'model' });
      expect(cell.measured_vs_entitled).toBeGreaterThan(0);
      expect(cell.value).toBeCloseTo(price.total / (cell.measured / 1000), 6);
      // The footer names the region and the date of the prices.
      const md = await volbench(['report', file, ...(region ? ['--region', region] : [])]);
      const sure = price.confidence === 'M' ? ' (confidence M: a secondary or remembered source)' : price.confidence === 'L' ? ' (confidence L: not verified)' : '';
      expect(md.stdout.trimEnd().split('\n').at(-1)).toBe(`Prices: ${price.region} as of ${price.as_of}${sure}; $/month and $ per unit are the volume alone, 730 h a month (AWS's basis, 8,760 / 12).`);
    }
  });

  it('a file that is not fio JSON is named, with what was expected', async () => {
    const bad = join(dir, 'notes.json');
    writeFileSync(bad, '{"name": "not a result"}\n');
    const out = await volbench(['report', SSD[0], bad]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${bad} holds no fio JSON result`);
    expect(out.stderr).toContain('"jobs"');
    expect(out.stdout).toBe('');
  });

  it('a document whose jobs are not fio job entries is refused by entry', async () => {
    const bad = join(dir, 'odd.json');
    writeFileSync(bad, JSON.stringify({ jobs: [{ jobname: 'x', error: 0 }, { name: 'y' }] }));
    const out = await volbench(['report', bad]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${bad}: jobs[1] is not a fio job entry`);
  });

  it('a missing file, an unknown format and a malformed S3 URL are refused clearly', async () => {
    const missing = await volbench(['report', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${join(dir, 'nope.json')}`);
    const format = await volbench(['report', SSD[0], '--format', 'pdf']);
    expect(format.stderr).toContain("--format takes html, md, csv, json, not 'pdf'");
    const s3 = await volbench(['report', 's3://b/result.json']);
    expect(s3.code).toBe(2);
    expect(s3.stderr).toContain('s3://b/result.json is not an S3 URL');
  });
});
