/** One entry for every format, for the CLI and the service. */
import { buildPublishReport, type Report, type ReportInput, type ReportOptions } from './model.js';
import { renderHtml } from './render-html.js';
import { renderCsv, renderJson, renderMarkdown } from './render-text.js';
import type { ThroughputUnit } from './units.js';

export const REPORT_FORMATS = ['html', 'md', 'csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const REPORT_CONTENT_TYPES: Readonly<Record<ReportFormat, string>> = {
  html: 'text/html; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

export interface RenderOptions {
  /** MiB/s (default) or MB/s in the human formats; JSON keeps MiB/s (and the results fio's units). */
  units?: ThroughputUnit;
}

export async function renderReport(report: Report, format: ReportFormat, options: RenderOptions = {}): Promise<string> {
  switch (format) {
    case 'html':
      return renderHtml(report, options);
    case 'md':
      return renderMarkdown(report, options);
    case 'csv':
      return renderCsv(report, options);
    case 'json':
      return renderJson(report);
  }
}

/** The files one report is published as: `report.json`, `report.md`, `report.html`. */
export const REPORT_FILES = { json: 'report.json', md: 'report.md', html: 'report.html' } as const;

/**
 * One report of `inputs` in every file format at once, for a caller that publishes them side by
 * side (a study, the rehearsal): each result's own scale and statistics are applied as any
 * report applies them, so the files cannot disagree with `volbench report` on the same results.
 */
export async function renderReportFiles(inputs: readonly ReportInput[], options: ReportOptions & RenderOptions = {}): Promise<{ report: Report; files: Record<string, string> }> {
  const report = buildPublishReport(inputs, options);
  const files: Record<string, string> = {};
  for (const [format, name] of Object.entries(REPORT_FILES) as Array<[ReportFormat, string]>) files[name] = await renderReport(report, format, options);
  return { report, files };
}
