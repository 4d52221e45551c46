/**
 * Regression (security review, third round): text from results reached the CSV and Markdown
 * reports as written. A job named `=HYPERLINK(...)` (or starting with +, -, @, a tab or a
 * carriage return) became a formula when the CSV was opened in a spreadsheet, and a job named
 * `<img src=x onerror=...>` was raw HTML in the Markdown, rendered by GitHub and most viewers.
 * Expected: such CSV text cells start with `'` (numbers such as -3.2 stay numbers), and the
 * Markdown shows `<`, `>` and `&` as entities wherever result text goes (titles, headers, cells).
 */
import { describe, expect, it } from 'vitest';

import { buildPublishReport, renderCsv, renderMarkdown } from '../../src/publish/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { requires } from '../helpers/requires.js';
import { csvRecords, fixture } from './helpers.js';

requires();

const FORMULAS = ['=HYPERLINK("http://evil.example/","x")', '+cmd|" /C calc"!A0', '-2+3+cmd|" /C calc"!A0', '@SUM(1+1)*cmd|" /C calc"!A0', '\t=1+1', '\r=1+1'];
const HTML = '<img src=x onerror=alert(1)>';

/** A real result whose one job is renamed `name`, its error message `error`. */
function renamed(name: string, error = ''): FioJson {
  const doc = structuredClone(fixture('custom-randrw.json'));
  doc.jobs[0].jobname = name;
  doc.volbench!.jobs![0].jobname = name;
  if (error) doc.volbench!.jobs![0].error_message = error;
  return doc;
}

describe('CSV', () => {
  it('neutralises text cells a spreadsheet would run as a formula, and leaves numbers alone', () => {
    const report = buildPublishReport([
      ...FORMULAS.map((name, i) => ({ source: `run-${i}`, result: renamed(name) })),
      { source: '-3.2', label: '-3.2', result: renamed('numbers') },
      { source: '=label', label: '=label', result: renamed('numbers') },
    ]);
    const records = csvRecords(renderCsv(report)).filter((r) => r.length > 1);
    const cells = records.flat();
    for (const formula of FORMULAS) {
      // The job name shows in the Suite column (the group title) and in its column headers.
      expect(cells.some((c) => c.startsWith(`'${formula}`) || c.startsWith(`'Jobs ${formula}`) || c === `Jobs ${formula}`), formula).toBe(true);
    }
    expect(cells.filter((c) => /^[=+\-@\t\r]/.test(c) && !/^[-+]?\d+(\.\d+)?$/.test(c))).toEqual([]);
    const labels = records.filter((r) => r[0] === 'Jobs numbers').map((r) => r[1]);
    expect(labels).toEqual(['-3.2', "'=label"]);
    // Measured numbers are written as they were.
    const row = records.find((r) => r[1] === '-3.2')!;
    expect(row.filter((c) => /^\d+(\.\d+)?$/.test(c)).length).toBeGreaterThan(4);
  });
});

describe('Markdown', () => {
  it('shows raw HTML from job names, labels and errors as text', () => {
    const report = buildPublishReport([
      { source: `results/${HTML}`, result: renamed(HTML, `failed: ${HTML}`) },
      { source: 'run-x', status: 'failed', error: `<script>alert(1)</script> & more`, jobNames: [HTML], result: null },
    ]);
    const md = renderMarkdown(report);
    expect(md).not.toMatch(/<[a-z/]/i);
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more');
    expect(md).toContain(`## Jobs &lt;img src=x onerror=alert(1)&gt;`);
  });
});
