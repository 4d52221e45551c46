/**
 * What a report render is given and what it answers: the runs to report on (by id; their
 * results are read where the report is drawn) and the format. renderTask is what the render
 * thread runs: it reads each result, parses it and hands the documents to the library's own
 * report API (buildPublishReport, renderReport), the one `volbench report` uses.
 */
import { activePrices, usePrices } from '../cloud/prices.js';
// The modules themselves, not publish/index.js: the thread needs no S3 client.
import { catalogPricer } from '../publish/catalog-price.js';
import { buildPublishReport, type ReportInput } from '../publish/model.js';
import { renderReport, type ReportFormat } from '../publish/render.js';
import type { FioJson } from '../report/fio-result.js';

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

export interface ReportTask {
  format: ReportFormat;
  runs: ReportRun[];
  /** The prices file in use in the service (--prices, VOLBENCH_PRICES), if any. */
  pricesFile: string | null;
  /** Largest answer, in bytes. */
  maxBytes: number;
}

export type RenderOutcome =
  | { kind: 'done'; body: Uint8Array }
  | { kind: 'too-large'; bytes: number };

function inputOf(run: ReportRun, readResult: (id: string) => string | null): ReportInput {
  const text = run.heldResult !== undefined ? run.heldResult : readResult(run.id);
  return {
    source: run.id,
    status: run.status,
    result: text === null ? null : (JSON.parse(text) as FioJson),
    error: run.error,
    suite: run.suite,
    jobNames: run.jobNames,
  };
}

export async function renderTask(task: ReportTask, readResult: (id: string) => string | null): Promise<RenderOutcome> {
  if ((activePrices()?.file ?? null) !== task.pricesFile) usePrices(task.pricesFile ?? undefined);
  const inputs = task.runs.map((run) => inputOf(run, readResult));
  const report = buildPublishReport(inputs, { priceVolume: catalogPricer(), reprice: task.pricesFile !== null });
  const text = await renderReport(report, task.format);
  const bytes = Buffer.byteLength(text);
  if (bytes > task.maxBytes) return { kind: 'too-large', bytes };
  return { kind: 'done', body: new TextEncoder().encode(text) };
}
