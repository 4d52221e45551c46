/**
 * What a render thread is given and what it answers. Two kinds of report, each read from the
 * store where it is drawn (a long run of many jobs stores megabytes):
 * - `publish`: the price/performance report of runs (by id) in a format of `volbench report`,
 *   drawn by the library's own report API (buildPublishReport, renderReport);
 * - `inputs`: the same report of rows given whole, results as text (a study's members, read
 *   from its bucket by the service);
 * - `result`: one run's result in fio's output formats, by the library's formatResult.
 */
import { activePrices, usePrices } from '../../cloud/price-source.js';
// The modules themselves, not publish/index.js: the thread needs no S3 client.
import { catalogPricer } from '../../publish/catalog-price.js';
import { buildPublishReport, type ReportInput } from '../../publish/model.js';
import { renderReport, type ReportFormat } from '../../publish/render.js';
import type { ThroughputUnit } from '../../publish/units.js';
import type { VerdictMetric } from '../../publish/verdicts.js';
import type { FioJson } from '../../fio-output/fio-result.js';
import { formatResult, type OutputFormat } from '../../fio-output/index.js';

/** A run as the report needs it, without its result. */
export interface ReportRun {
  id: string;
  status: string;
  error: string | null;
  suite: string | null;
  jobNames: string[];
  /** The result when the service holds it in memory (the store refused it); else it is read from the store. */
  heldResult?: string | null;
}

export interface PublishTask {
  kind: 'publish';
  format: ReportFormat;
  runs: ReportRun[];
  /** The prices file in use in the service (--prices, VOLBENCH_PRICES), if any. */
  pricesFile: string | null;
  rankBy?: VerdictMetric;
  units?: ThroughputUnit;
}

/** The report of rows given whole (a study's members), each result as text: parsed on the thread. */
export interface InputsTask {
  kind: 'inputs';
  /** What the rows are drawn from: requests with the same key share a render. */
  key: string;
  format: ReportFormat;
  inputs: Array<Omit<ReportInput, 'result'> & { resultText?: string }>;
  pricesFile: string | null;
  rankBy?: VerdictMetric;
  units?: ThroughputUnit;
}

export interface ResultTask {
  kind: 'result';
  run: Pick<ReportRun, 'id' | 'heldResult'>;
  format: OutputFormat;
}

/** A render and the largest answer it may give, in bytes. */
export type ReportTask = (PublishTask | InputsTask | ResultTask) & { maxBytes: number };

export type RenderOutcome =
  | { kind: 'done'; body: Uint8Array }
  | { kind: 'too-large'; bytes: number };

type ReadResult = (id: string) => string | null;

function resultText(run: Pick<ReportRun, 'id' | 'heldResult'>, readResult: ReadResult): string | null {
  return run.heldResult !== undefined ? run.heldResult : readResult(run.id);
}

function inputOf(run: ReportRun, readResult: ReadResult): ReportInput {
  const text = resultText(run, readResult);
  return {
    source: run.id,
    status: run.status,
    result: text === null ? null : (JSON.parse(text) as FioJson),
    error: run.error,
    suite: run.suite,
    jobNames: run.jobNames,
  };
}

async function publish(task: PublishTask | InputsTask, readResult: ReadResult): Promise<string> {
  if ((activePrices()?.file ?? null) !== task.pricesFile) usePrices(task.pricesFile ?? undefined);
  const inputs = task.kind === 'inputs'
    ? task.inputs.map(({ resultText, ...input }): ReportInput => ({ ...input, result: resultText === undefined ? null : (JSON.parse(resultText) as FioJson) }))
    : task.runs.map((run) => inputOf(run, readResult));
  const report = buildPublishReport(inputs, { priceVolume: catalogPricer(), reprice: task.pricesFile !== null, rankBy: task.rankBy });
  return renderReport(report, task.format, { units: task.units });
}

function result(task: ResultTask, readResult: ReadResult): string {
  const text = resultText(task.run, readResult);
  // The route checked that the run has one; a run pruned meanwhile has none.
  if (text === null) throw new Error(`run ${task.run.id} has no result`);
  return formatResult(JSON.parse(text) as FioJson, task.format);
}

export async function renderTask(task: ReportTask, readResult: ReadResult): Promise<RenderOutcome> {
  const text = task.kind === 'result' ? result(task, readResult) : await publish(task, readResult);
  const bytes = Buffer.byteLength(text);
  if (bytes > task.maxBytes) return { kind: 'too-large', bytes };
  return { kind: 'done', body: new TextEncoder().encode(text) };
}
