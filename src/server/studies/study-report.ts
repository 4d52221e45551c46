/**
 * What a study's report is drawn from: each member's outcome, and for each collected member the
 * bytes the controller saved (`FLEET/results/LABEL.json`), read capped and held to the SHA-256 the
 * verified state names; a member without one is a row that says why. The results are handed to
 * a report thread as text, parsed there (megabytes of JSON stay off the event loop).
 */
import { fleetReportInputs, loadStudy, resultKey, type StudyContext } from '../../fleet/index.js';
import { readCapped } from '../../fleet/study/bucket-objects.js';
import { outcomeOf } from '../../fleet/study/collect-step.js';
import { sha256Hex } from '../../fleet/index.js';
import type { ReportInput } from '../../publish/drafts.js';

const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** A report's row: a result as text where there is one. */
export type TextReportInput = Omit<ReportInput, 'result'> & { resultText?: string };

export interface StudyReportInputs {
  /** What the rows are drawn from, for requests that ask for the same report to share it. */
  key: string;
  inputs: TextReportInput[];
  /** The results' bytes together. */
  bytes: number;
}

export async function studyReportInputs(id: string, ctx: StudyContext): Promise<StudyReportInputs> {
  const state = await loadStudy(id, ctx);
  const texts = await Promise.all(state.members.map(async (m): Promise<string | undefined> => {
    if (!m.collected) return undefined;
    const got = await readCapped(ctx.clients, state.bucket!, resultKey(id, m.label), MAX_RESULT_BYTES).catch(() => undefined);
    return got && sha256Hex(got.body) === m.collected.sha256 ? got.body.toString('utf8') : undefined;
  }));
  const outcomes = state.members.map((m, i) => (m.collected && texts[i] === undefined
    ? { label: m.label, status: 'failed' as const, error: `s3://${state.bucket}/${resultKey(id, m.label)} is not the result collected` }
    : outcomeOf(m)));
  const inputs = fleetReportInputs(state, outcomes).map((input, i): TextReportInput => {
    const { result: _none, ...rest } = input;
    if (texts[i] === undefined) return rest;
    const { cloud: _cloud, ...withResult } = rest;
    return { ...withResult, resultText: texts[i] };
  });
  const bytes = texts.reduce((sum, t) => sum + (t?.length ?? 0), 0);
  return { key: `${id} ${state.study?.updatedAt} ${state.members.map((m) => m.collected?.sha256 ?? '-').join(',')}`, inputs, bytes };
}
