/**
 * Reading a fio JSON document from text as fio leaves it: fio may print warnings or its normal
 * output before the `{` (and, with --status-interval, several documents one after another).
 * The last complete document with a `jobs` array (or fio --client's `client_stats`) is the result.
 * A volbench service's run record (`POST /v1/runs?wait=`, `GET /v1/runs/{id}` with its result)
 * holds one under `result`.
 */
import { VolbenchError } from '../errors.js';
import type { FioJson } from '../fio-output/fio-result.js';

/** End index (exclusive) of the JSON object that starts at `start`, or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth++;
    } else if (c === '}' && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}

/**
 * The document as a result: its `jobs`, or for fio's client/server mode (--client) its
 * `client_stats`, whose entries have the same shape. Null for anything else.
 */
function asResult(value: unknown): FioJson | null {
  if (typeof value !== 'object' || value === null) return null;
  const doc = value as { jobs?: unknown; client_stats?: unknown };
  if (Array.isArray(doc.jobs)) return value as FioJson;
  if (Array.isArray(doc.client_stats)) return { ...(value as FioJson), jobs: doc.client_stats as FioJson['jobs'] };
  return null;
}

/**
 * A volbench service's run record: its result, or (ended without one, or not ended) an error
 * that says which run and why; null when the value is not a run record.
 */
function fromRunRecord(value: unknown, source: string): FioJson | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as { id?: unknown; status?: unknown; result?: unknown; error?: { detail?: unknown } | null };
  if (typeof record.id !== 'string' || typeof record.status !== 'string' || !('links' in record || 'result' in record)) return null;
  const result = asResult(record.result);
  if (result) return result;
  const status = record.status.slice(0, 20);
  const state = status === 'queued' || status === 'running' ? `not ended yet (${status})` : `${status} without a result`;
  const why = typeof record.error?.detail === 'string' ? `: ${record.error.detail.slice(0, 300)}` : '';
  throw new VolbenchError('EINVALID_ARGS', `${source} is the record of run ${record.id.slice(0, 100)}, ${state}${why}`, {
    field: source,
    accepted: 'a run record that holds its result (POST /v1/runs?wait=S answered 200), or GET /v1/runs/{id}/result',
  });
}

/** The fio result in `text`; `source` names it in errors (a file name). */
export function parseFioJsonText(text: string, source = 'input'): FioJson {
  let found: FioJson | undefined;
  // fio's document starts with '{' at the beginning of a line; text before it is skipped.
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    if (start > 0 && text[start - 1] !== '\n') continue;
    const end = objectEnd(text, start);
    if (end < 0) break;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end));
    } catch {
      // Not JSON after all (a brace in fio's text output): look further.
      continue;
    }
    found = asResult(value) ?? fromRunRecord(value, source) ?? found;
    start = end - 1;
  }
  if (!found) {
    throw new VolbenchError('EINVALID_ARGS', `${source} holds no fio JSON result (an object with a "jobs" or "client_stats" array)`, {
      field: source,
      accepted: "the output of fio or volbench with --output-format=json or json+, or a volbench service's run record with its result",
    });
  }
  return found;
}
