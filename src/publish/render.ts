/** One entry for every format, for the CLI and the service. */
import type { Report } from './model.js';
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
