/** The report as Markdown (for READMEs and pull requests), CSV and JSON (for scripts). */
import { basisText, costBasis } from '../cloud/cost.js';
import { inertText } from '../inert-text.js';
import { contextLine, ebsStatsNote, rehearsalBanner } from './context.js';
import { csvTable } from './csv-table.js';
import type { Report } from './model.js';
import { FLAG_LEGEND, groupTable, hasFlags, type TableOptions } from './table.js';
import { verdictText } from './verdicts.js';

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Text from results (job names, labels, errors) as Markdown that shows it as written: raw HTML
 * (`<img onerror=...>`) would be rendered by GitHub and most viewers, so `<`, `>` and `&` become
 * entities; a pipe would end the cell and a newline the row. Nothing in it may become a link or
 * an image: `[` and `]` are escaped (no `![x](http://...)`, `[x](javascript:...)` or reference
 * link), and the `:` of `://` and the dot of `www.` are entities, which GFM's autolinks do not
 * take for a URL (`http://...` stays text). An e-mail address may still show as a mailto: link,
 * which neither runs nor fetches anything. A control character (an escape sequence for the
 * terminal the report is printed to) is shown as its escape (inert-text.ts).
 */
function mdCell(text: string): string {
  return inertText(text
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c])
    .replace(/:\/\//g, '&#58;//')
    .replace(/(www)\./gi, '$1&#46;')
    .replace(/[\\[\]|]/g, (c) => `\\${c}`)
    .replace(/[\r\n]+/g, ' '));
}

/**
 * The first screen's lines under the title: what was measured on (the context line), the
 * rehearsal banner where the volumes were emulated, and, once, where no statistics were read.
 */
export function openingLines(report: Report): { context: string; banner: string | null; note: string | null } {
  return { context: contextLine(report.context), banner: rehearsalBanner(report.context), note: ebsStatsNote(report.context) };
}

/** The footer: each price list the $ columns use, by region and date (each row's Price column says how sure its price is). */
export function pricesLine(report: Report): string {
  if (report.prices.length === 0) return 'No prices: the $ columns are empty.';
  const sure = { M: ' (confidence M: a secondary or remembered source)', L: ' (confidence L: not verified)' } as const;
  const lists = report.prices.map((p) => (p.region ? `${p.region} as of ${p.as_of}` : `as of ${p.as_of} (region not recorded)`) + (p.confidence ? sure[p.confidence] : ''));
  // Results are priced for the volume alone over AWS's month (annotate and the reprice alike).
  return `Prices: ${lists.join('; ')}; $/month and $ per unit are the volume alone, ${basisText(costBasis('730h'))}.`;
}

/** The verdict lines, one per question the report's suites answer. */
export function verdictLines(report: Report, options: TableOptions = {}): string[] {
  return report.verdicts.map((v) => verdictText(v, options.units));
}

export function renderMarkdown(report: Report, options: TableOptions = {}): string {
  const parts: string[] = [`# ${mdCell(report.title)}`, ''];
  const open = openingLines(report);
  if (open.banner) parts.push(`> **${mdCell(open.banner)}**`, '');
  if (open.context) parts.push(mdCell(open.context), '');
  if (open.note) parts.push(mdCell(open.note), '');
  const verdicts = verdictLines(report, options);
  if (verdicts.length) parts.push('## Verdict', '', ...verdicts.map((v) => `- ${mdCell(v)}`), '');
  for (const group of report.groups) {
    const t = groupTable(group, options);
    parts.push(`## ${mdCell(group.title)}`, '');
    parts.push(`| ${t.header.map(mdCell).join(' | ')} |`);
    parts.push(`|${t.header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`);
    for (const row of t.rows) parts.push(`| ${row.map(mdCell).join(' | ')} |`);
    parts.push('');
    if (hasFlags(group)) parts.push(mdCell(FLAG_LEGEND), '');
  }
  parts.push(mdCell(pricesLine(report)), '');
  return parts.join('\n');
}

/** A cell a spreadsheet reads as a number (`-3.2`, `1e-6`): it stays one. */
const CSV_NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** What makes Excel, LibreOffice and Sheets read a cell as a formula (or a DDE call). */
const CSV_FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV field, quoted where RFC 4180 needs it. Text that a spreadsheet would run as a formula
 * (a job name `=HYPERLINK(...)`) gets a leading `'`, which spreadsheets show as text and do not
 * evaluate; numbers are left alone.
 */
function csvField(text: string): string {
  const safe = CSV_FORMULA_START.test(text) && !CSV_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * One block per group, each with its own header line and a leading `Suite` column, blocks
 * separated by an empty line: tables of different suites have different columns. Every figure
 * is a number in a column of its own (csv-table.ts).
 */
export function renderCsv(report: Report, options: TableOptions = {}): string {
  const blocks = report.groups.map((group) => {
    const t = csvTable(group, options);
    const suite = group.suite ?? group.title;
    return [['Suite', ...t.header], ...t.rows.map((r) => [suite, ...r])].map((r) => r.map(csvField).join(',')).join('\r\n');
  });
  return `${blocks.join('\r\n\r\n')}\r\n`;
}

/** The same data as the tables, numbers unrounded; the charts' details stay out. */
export function renderJson(report: Report): string {
  const plain = {
    ...report,
    groups: report.groups.map((g) => ({ ...g, rows: g.rows.map(({ details: _details, ...row }) => row) })),
    // The first screen's words as the other formats print them: a page shows them as they are.
    lines: { ...openingLines(report), verdicts: verdictLines(report) },
  };
  return `${JSON.stringify(plain, null, 2)}\n`;
}
