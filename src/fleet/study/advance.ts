/**
 * One call of the study's machine (steps.ts): the state read from S3 through the verifier, every
 * step that is due taken in turn until one has to wait (for a stack, a member) or the study
 * ends, and the state written back after each step that changed it. It waits on nothing: the
 * Lambda form calls it once a minute, a CLI driver in a loop (drive.ts). The caller holds the
 * study's lease.
 */
import type { Report } from '../../publish/index.js';
import { VolbenchError } from '../../errors.js';
import { loadRemoteState, saveState, type FleetState, type StudyStep } from '../state.js';
import { collectingStep, reportingStep } from './collect-step.js';
import { nowOf, type StudyContext } from './context.js';
import { creatingStep, plannedStep } from './create-step.js';
import { checkStudySeal } from './seal.js';
import { runningStep } from './run-step.js';
import { failStudy, isTerminal, studyOf } from './steps.js';
import { tearingDownStep } from './teardown-step.js';

export interface Advanced {
  state: FleetState;
  /** The report, when this call made it. */
  report?: Report;
}

type Step = (state: FleetState, ctx: StudyContext) => Promise<unknown>;

const STEPS: Readonly<Record<Exclude<StudyStep, 'done' | 'failed'>, Step>> = {
  planned: plannedStep,
  creating: creatingStep,
  running: runningStep,
  collecting: collectingStep,
  reporting: reportingStep,
  'tearing-down': tearingDownStep,
};

/** The study's state from S3, refused (EINVALID_ARGS) when the fleet is not a study. */
export async function loadStudy(fleetId: string, ctx: StudyContext): Promise<FleetState> {
  const state = await loadRemoteState(fleetId, ctx.clients, ctx.bucket);
  if (!state.study) {
    throw new VolbenchError('EINVALID_ARGS', `fleet ${fleetId} is not a study (fleet up made it, and fleet run drives it)`, {
      field: 'FLEET_ID', accepted: 'the id of a study: fleet compare prints it',
    });
  }
  return state;
}

async function save(state: FleetState, ctx: StudyContext): Promise<void> {
  await saveState(state, ctx.stateDir, ctx.clients);
}

/** Takes every step of `fleetId`'s study that is due; the state as it is after. */
export async function advanceStudy(fleetId: string, ctx: StudyContext): Promise<Advanced> {
  const state = await loadStudy(fleetId, ctx);
  // Read from S3 again each call: what its stacks are made from must still be what was started.
  await checkStudySeal(state, ctx.clients);
  const study = studyOf(state);
  let report: Report | undefined;
  // Each step moves at most once a call: a bound, not a loop that could spin.
  for (let i = 0; i < 8 && !isTerminal(study.step); i++) {
    const from = study.step as keyof typeof STEPS;
    const before = JSON.stringify(state);
    const out = await STEPS[from](state, ctx);
    if (from === 'reporting') report = out as Report;
    if (study.step === 'tearing-down' && from !== 'tearing-down') ctx.onEvent?.({ event: 'tearing-down', fleetId });
    if (JSON.stringify(state) !== before) await save(state, ctx);
    if (study.step === from) break;
  }
  return { state, ...(report ? { report } : {}) };
}

/**
 * Stops a study (a signal, `DELETE /v1/studies/{id}`): its members not yet done are cancelled,
 * and it goes to its teardown, which the next calls take. A study ending already is left so.
 */
export async function cancelStudy(fleetId: string, ctx: StudyContext, reason: string): Promise<FleetState> {
  const state = await loadStudy(fleetId, ctx);
  const study = studyOf(state);
  if (isTerminal(study.step) || study.step === 'tearing-down') return state;
  failStudy(state, reason, ctx.onEvent, nowOf(ctx));
  ctx.onEvent?.({ event: 'tearing-down', fleetId });
  await save(state, ctx);
  return state;
}
