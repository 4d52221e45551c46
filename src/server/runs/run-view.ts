/** A stored run as the API shows it: ISO timestamps, links, and no internal bookkeeping. */
import { runVolumeLabel } from '../../publish/labels.js';
import type { RunProgress } from '../../run/progress.js';
import type { RunBody, RunProgressBody, RunSummaryBody } from '../../api/run.js';
import type { RunRow } from '../store/runs.js';
import { runWords } from './run-words.js';

export const API_PREFIX = '/v1';

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function runLinks(id: string): RunSummaryBody['links'] {
  const self = `${API_PREFIX}/runs/${id}`;
  return { self, result: `${self}/result`, events: `${self}/events` };
}

export function runSummaryView(run: RunRow): RunSummaryBody {
  return {
    id: run.id,
    status: run.status,
    targets: run.roots,
    created_at: iso(run.createdAt)!,
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    error: run.error,
    suite: run.suite,
    analysis: run.analysis,
    gate: run.gate,
    links: runLinks(run.id),
  };
}

export function runView(run: RunRow): RunBody {
  return {
    ...runSummaryView(run), ...runWords(run), spec: run.spec, assert: run.asserts, volume: run.volume, volume_label: runVolumeLabel(run.volume),
    assertions: run.assertions, progress: run.progress,
  };
}

/** The file a stage is laying out, while it does. */
function layoutView(p: RunProgress): RunProgressBody['layout'] {
  const at = p.layouts.findIndex((l) => !l.ended);
  if (!p.layingOut || at < 0) return undefined;
  const l = p.layouts[at];
  const rate = l.doneBytes > 0 && l.elapsedMs > 0 ? Math.round((l.doneBytes * 1000) / l.elapsedMs) : null;
  return { path: l.path, file: at + 1, done_bytes: l.doneBytes, total_bytes: l.totalBytes, bytes_per_sec: rate };
}

/** The library's progress report in the API's shape (snake_case, no per-instance detail). */
export function progressView(p: RunProgress): RunProgressBody {
  const layout = layoutView(p);
  return {
    stage: p.stage,
    stages: p.stages,
    elapsed_ms: p.elapsedMs,
    fraction: p.fraction,
    eta_ms: p.etaMs,
    ...(layout ? { layout } : {}),
    read: { ...p.read },
    write: { ...p.write },
    trim: { ...p.trim },
  };
}
