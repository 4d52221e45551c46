/**
 * The report stage: raw engine results to fio 3.33's JSON (`json`, `json+`), normal text and terse lines.
 */
export { buildReport, ETA_UNKNOWN } from './build.js';
export { formatJson, type FormatJsonOptions } from './format-json.js';
export { formatNormal, type FormatNormalOptions } from './format-normal.js';
export { formatTerse } from './format-terse.js';
export { HIST_BUCKETS, bucketIndex, bucketValue, emptyHist, histBins, mergeHist, percentiles } from './histogram.js';
export type {
  FioDirStats, FioJob, FioJson, FioLatStats, FioResult, FioSyncStats,
  VolbenchJob, VolbenchSection, VolbenchSeriesDir, VolbenchSeriesPoint, VolbenchTarget,
} from './fio-result.js';
export {
  ebsLatencyBinSchema, volbenchEbsStatsSchema, volbenchEmulationSchema,
  type EbsLatencyBin, type VolbenchEbsStats, type VolbenchEmulation,
} from './ebs-stats-section.js';
export type { DiskUtil, OutputFormat, ReportJob, RunReportInput, TargetIdentity } from './types.js';

import { formatJson } from './format-json.js';
import { formatNormal } from './format-normal.js';
import { formatTerse } from './format-terse.js';
import type { OutputFormat } from './types.js';
import type { FioJson } from './fio-result.js';

/** A result in one of fio's output formats. */
export function formatResult(result: FioJson, format: OutputFormat): string {
  if (format === 'normal') return formatNormal(result);
  if (format === 'terse') return formatTerse(result);
  return formatJson(result, { plus: format === 'json+' });
}
