/**
 * A rehearsal's prices. Broke: an emulated volume's $ per 1,000 IOPS and $ per MiB/s divided AWS's
 * price for the full-size volume by rates scaled to 0.25, so every $ figure was 4 times AWS's,
 * with only the banner to warn. Expected: a price cell divides by the rates unscaled (measured /
 * rate: what the volume AWS sells would deliver at the same measured/entitled ratio), the table
 * and banner say so, and measured / entitled stays as measured (both sides scaled).
 */
import { describe, expect, it } from 'vitest';

import { cloudFacts, parseVolume } from '../../src/cloud/index.js';
import type { FioJob, FioResult } from '../../src/fio-output/index.js';
import { buildPublishReport, renderCsv, renderMarkdown, type Report } from '../../src/publish/index.js';
import { dollars } from '../../src/publish/units.js';
import { requires } from '../helpers/requires.js';
import { csvRecords, fixture } from './helpers.js';

requires();

const RATE = 0.25;
const TEST = 'RND16K-Q1T16-read';

const on = (doc: FioResult, extra: Record<string, unknown> = {}): FioResult =>
  cloudFacts(doc, { volume: parseVolume('gp3:500g'), instance: 'm6i.large', region: 'us-east-1', availabilityZone: 'us-east-1a', ...extra });

/** The same result as if measured on the real volume: each direction's rates divided by `rate`. */
function unscaledCopy(doc: FioResult, rate: number): FioResult {
  const copy = structuredClone(doc);
  for (const job of copy.jobs as FioJob[]) {
    for (const d of [job.read, job.write]) {
      if (!d) continue;
      d.iops /= rate;
      d.bw_bytes /= rate;
      d.bw = d.bw / rate;
    }
  }
  return copy;
}

const report = (doc: FioResult): Report => buildPublishReport([{ source: 'gp3.json', result: doc }]);
const cell = (r: Report, metric: string) => r.groups[0].rows[0].cells[`${TEST}:${metric}`];

describe('an emulated volume\'s price', () => {
  const measuredDoc = fixture('aws-ssd-vol-a.json') as FioResult;
  const emulated = report(on(measuredDoc, { emulation: { rate: RATE, time: 0.1 } }));
  const real = report(on(unscaledCopy(measuredDoc, RATE)));
  const asMeasured = report(on(measuredDoc));

  it('is the real volume\'s at the rate-scaled IOPS and MiB/s, a quarter of the emulated rates\' at rate 0.25', () => {
    for (const metric of ['usd_per_1000_iops', 'usd_per_mibps']) {
      const e = cell(emulated, metric);
      expect(e.value).not.toBeNull();
      expect(e.value).toBeCloseTo(cell(real, metric).value!, 9);
      expect(e.value).toBeCloseTo(cell(asMeasured, metric).value! * RATE, 9);
      // What it divided by, beside what was measured.
      expect(e.unscaled).toBeCloseTo(e.measured! / RATE, 6);
      expect(cell(real, metric).unscaled).toBeUndefined();
    }
  });

  it('keeps measured / entitled as measured: both sides scaled, the real volume\'s ratio', () => {
    const e = cell(emulated, 'usd_per_1000_iops');
    expect(e.entitled).toBe(3000 * RATE);
    expect(e.measured).toBe(cell(asMeasured, 'usd_per_1000_iops').measured);
    expect(e.measured_vs_entitled).toBeCloseTo(cell(real, 'usd_per_1000_iops').measured_vs_entitled!, 9);
  });

  it('is said in the table\'s headers and in the banner; a real volume\'s table says nothing of it', () => {
    const md = renderMarkdown(emulated);
    expect(md).toContain('> **rehearsal on one host: rates ×0.25, buckets ×0.1; entitlements scaled to match; $ per IOPS and per MiB/s on the rates unscaled (measured ÷ 0.25)**');
    const header = md.split('\n').find((l) => l.startsWith('| Label |'))!;
    expect(header).toContain(`| $ per 1,000 IOPS (unscaled) at ${TEST} |`);
    const row = md.split('\n')[md.split('\n').indexOf(header) + 2].split(' | ');
    const price = cell(emulated, 'usd_per_1000_iops').value!;
    expect(row[1]).toBe(dollars(price));
    const [csvHeader] = csvRecords(renderCsv(emulated));
    expect(csvHeader).toContain(`$ per 1,000 IOPS (unscaled) at ${TEST}`);
    expect(renderMarkdown(real)).not.toContain('unscaled');
  });
});
