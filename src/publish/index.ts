/**
 * Publishing results: price/performance tables and charts in Markdown, CSV, JSON and HTML, the
 * same renderer for `volbench report` and the service's report routes and pages.
 */
export { buildPublishReport, columnKey, MIN_SERIES_POINTS } from './model.js';
export type { PriceMetric, Report, ReportContext, ReportGroup, ReportRow, ReportColumn, ReportCell, ReportInput, ReportOptions, RowStatus, SeriesPoint } from './model.js';
export { readResult, type ReadResult } from './read-result.js';
export { contextLine, rehearsalBanner } from './context.js';
export type { CloudVolumeFields, VolumePrice, PriceVolume } from './cloud-fields.js';
export { renderMarkdown, renderCsv, renderJson } from './render-text.js';
export { renderHtml } from './render-html.js';
export { groupCharts, reportCharts } from './charts.js';
export type { ReportChart } from './charts.js';
export { readReportFile, parseReportInput } from './read-input.js';
export { catalogPricer } from './catalog-price.js';
export { readReportS3, parseS3Url, isS3Url } from './read-s3.js';
export { renderReport, renderReportFiles, REPORT_FILES, REPORT_FORMATS, REPORT_CONTENT_TYPES } from './render.js';
export type { ReportFormat } from './render.js';
export type { RenderOptions } from './render.js';
export { reportVerdicts, verdictText, parseRankBy } from './verdicts.js';
export type { Verdict, VerdictMetric } from './verdicts.js';
export { parseUnits, THROUGHPUT_UNITS } from './units.js';
export type { ThroughputUnit } from './units.js';
export { ENTITLED_TOLERANCE } from './entitled.js';
export type { AboveCause } from './entitled.js';
