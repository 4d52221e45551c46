/**
 * Regression (security review, third round): text from results reached the CSV and Markdown
 * reports as written. A job named `=HYPERLINK(...)` (or starting with +, -, @, a tab or a
 * carriage return) became a formula when the CSV was opened in a spreadsheet, and a job named
 * `<img src=x onerror=...>` was raw HTML in the Markdown, rendered by GitHub and most viewers.
 * Expected: such CSV text cells start with `'` (numbers such as -3.2 stay numbers), and the
 * Markdown shows `<`, `>` and `&` as entities wherever result text goes (titles, headers, cells).
 *
 * Regression (fourth round): `![x](http://...)` and `[x](javascript:...)` in job names passed
 * into the Markdown tables, an image fetched from anywhere and a link that runs script where a
 * viewer allows it. Expected: GitHub's own renderer (cmark-gfm, with its table and autolink
 * extensions) makes no link and no image of any name, and shows each name's text as written.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { buildPublishReport, renderCsv, renderMarkdown } from '../../src/publish/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';
import { requires } from '../helpers/requires.js';
import { csvRecords, fixture } from './helpers.js';

const needs = requires('child', 'cmark-gfm');

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

const LINKS = ['![x](http://e.example/i.png)', '[x](javascript:alert(1))', '[ref][1]', '[1]: http://e.example/', 'see http://e.example/a and www.e.example'];

describe('Markdown links and images', () => {
  const reason = needs.missing('cmark-gfm');
  it.skipIf(reason !== undefined)(`makes no link or image of a name, as GitHub renders it${reason ? ` (skipped: ${reason})` : ''}`, () => {
    const report = buildPublishReport(LINKS.map((name, i) => ({ source: `run-${i}`, label: name, result: renamed(name) })));
    const md = renderMarkdown(report);
    const html = execFileSync('cmark-gfm', ['-e', 'table', '-e', 'autolink'], { input: md, encoding: 'utf8' });
    expect(html).not.toMatch(/<a |<img /);
    // Each name shows as written (the renderer's own escaping of & and quotes aside).
    const text = html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    for (const name of LINKS) expect(text, name).toContain(name);
    // The control: the same text unescaped is a link and an image for this renderer.
    const raw = execFileSync('cmark-gfm', ['-e', 'table', '-e', 'autolink'], { input: `| a |\n| --- |\n| ${LINKS.join(' ')} |\n`, encoding: 'utf8' });
    expect(raw).toMatch(/<img /);
    expect(raw).toMatch(/<a /);
  });
});
