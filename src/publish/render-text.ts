/** The report as Markdown (for READMEs and pull requests), CSV and JSON (for scripts). */
import type { Report } from './model.js';
import { groupTable } from './table.js';

function mdCell(text: string): string {
  // A pipe would end the cell and a newline the row.
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** The footer: each price list the $ columns use, by region and date. */
export function pricesLine(report: Report): string {
  if (report.prices.length === 0) return 'No prices: the $ columns are empty.';
  const lists = report.prices.map((p) => (p.region ? `${p.region} as of ${p.as_of}` : `as of ${p.as_of} (region not recorded)`));
  return `Prices: ${lists.join('; ')}.`;
}

export function renderMarkdown(report: Report): string {
  const parts: string[] = [];
  for (const group of report.groups) {
    const t = groupTable(group);
    parts.push(`## ${mdCell(group.title)}`, '');
    parts.push(`| ${t.header.map(mdCell).join(' | ')} |`);
    parts.push(`|${t.header.map((_, i) => (i === 0 || i === 1 ? ' --- ' : ' ---: ')).join('|')}|`);
    for (const row of t.rows) parts.push(`| ${row.map(mdCell).join(' | ')} |`);
    parts.push('');
  }
  parts.push(pricesLine(report), '');
  return parts.join('\n');
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One block per group, each with its own header line and a leading `Suite` column, blocks
 * separated by an empty line: tables of different suites have different columns.
 */
export function renderCsv(report: Report): string {
  const blocks = report.groups.map((group) => {
    const t = groupTable(group);
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
  };
  return `${JSON.stringify(plain, null, 2)}\n`;
}
