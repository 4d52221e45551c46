/**
 * An analysis run is admitted as the library prepares it (every check of its own, under the
 * service's rules: roots, the roots' write opt-in, limits) and as its largest single run would
 * be admitted as a spec (paths, block device writes, runtime over all its runs, memory and
 * instances per run, the devices it queues on). The request's own paths are authorized first,
 * before the library looks at them.
 */
import { VolbenchError } from '../../errors.js';
import type { Assertion } from '../../gates/index.js';
import type { JobSpec } from '../../jobspec/types.js';
import type { PlanOptions } from '../../plan/index.js';
import type { FioResult } from '../../fio-output/fio-result.js';
import {
  prepareRotational, prepareSweep, prepareUniformity, runPreparedRotational, runPreparedSweep, runPreparedUniformity,
  sweepValues, DEFAULT_MAX_DEPTH, type AnalysisShape, type RotationalOptions, type SweepOptions, type UniformityOptions,
} from '../../analysis/index.js';
import { pointSpec } from '../../analysis/sweep.js';
import type { RunJobsOptions } from '../../run/run-jobs.js';
import { admitSpec, planOptionsFor, type AdmissionContext, type AdmittedSpec } from './spec-admission.js';
import { authorizePath, checkPathText } from './path-policy.js';
import { assertionNotApplicable } from '../problems/service-problems.js';
import type { TargetRoot } from './roots.js';
import type { AnalysisRunRequest, RunAnalysisBody } from '../../api/analysis-request.js';
import { parseTimeNs } from '../../jobspec/index.js';

/** What an analysis step reports as it goes: a sweep point, a uniformity chunk, a batch of reads. */
export interface AnalysisStep {
  analysis: AnalysisRunRequest['analysis'];
  step: number;
  steps: number;
  /** The step's own figures, once it has run (a point's IOPS and latencies, a chunk's MB/s). */
  [key: string]: unknown;
}

export interface AdmittedAnalysis extends AdmittedSpec {
  /** The largest single run, as the run record's spec. */
  spec: JobSpec;
  /** The request without its assertions, as the run record shows it. */
  view: RunAnalysisBody;
  /** Runs the analysis as admitted, with the admission's rules. */
  run: (control: RunJobsOptions, onStep: (step: AnalysisStep) => void) => Promise<FioResult>;
}

function sweepOptions(request: Extract<AnalysisRunRequest, { analysis: 'sweep' }>): SweepOptions {
  const { over, max_depth: maxDepth, alpha, max_p99: maxP99 } = request;
  return {
    ...(over === undefined ? {} : { over }),
    ...(maxDepth === undefined ? {} : { maxDepth }),
    ...(alpha === undefined ? {} : { alpha }),
    ...(maxP99 === undefined ? {} : { maxP99Ns: parseTimeNs(String(maxP99), { defaultUnit: 'us', field: 'max_p99' }) }),
  };
}

function uniformityOptions(request: Extract<AnalysisRunRequest, { analysis: 'uniformity' }>): UniformityOptions {
  const { analysis: _analysis, assert: _assert, ...rest } = request;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}

function rotationalOptions(request: Extract<AnalysisRunRequest, { analysis: 'rotational' }>): RotationalOptions {
  const { filename, force, samples, ioengine } = request;
  return {
    ...(filename === undefined ? {} : { filename }),
    ...(force === undefined ? {} : { force }),
    ...(samples === undefined ? {} : { longSamples: samples, shortSamples: samples }),
    ...(ioengine === undefined ? {} : { ioengine }),
  };
}

/** The library's refusal of an assertion, as the service tells one. */
function assertionsTold<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((err: unknown) => {
    if (err instanceof VolbenchError && err.field === '--assert') {
      throw assertionNotApplicable(err.message, { field: 'assert', code: err.code, ...(err.accepted ? { accepted: err.accepted } : {}) });
    }
    throw err;
  });
}

async function admitShape(shape: AnalysisShape, base: TargetRoot, ctx: AdmissionContext): Promise<AdmittedSpec> {
  return admitSpec(shape.spec, base, ctx, { repeats: shape.runs, bind: () => [] });
}

/** Runs `prepare` with the admitted plan released when it refuses. */
async function holding<T>(admitted: AdmittedSpec, prepare: () => Promise<T>): Promise<T> {
  try {
    return await prepare();
  } catch (err) {
    admitted.plan.release();
    throw err;
  }
}

export async function admitAnalysis(
  request: AnalysisRunRequest, base: TargetRoot, ctx: AdmissionContext, assertions: Assertion[],
): Promise<AdmittedAnalysis> {
  const { assert: _assert, ...view } = request;
  const rules = (planOptions: PlanOptions) => ({ ...planOptions, assertions });
  if (request.analysis === 'sweep') {
    const spec: JobSpec = { ...(request.global ? { global: request.global } : {}), jobs: request.jobs };
    const options = sweepOptions(request);
    // The deepest point is the largest run: admitted first, so its paths are authorized before the library looks at them.
    const values = sweepValues(options.maxDepth ?? DEFAULT_MAX_DEPTH);
    const shape = { spec: pointSpec(spec, options.over ?? 'iodepth', values[values.length - 1]), runs: values.length };
    const admitted = await admitShape(shape, base, ctx);
    const prepared = await holding(admitted, () => assertionsTold(prepareSweep(spec, { ...options, ...rules(admitted.planOptions) })));
    return {
      ...admitted, spec: shape.spec, view,
      run: (control, onStep) => runPreparedSweep(spec, prepared, {
        ...options, ...rules(admitted.planOptions), ...control,
        onPoint: (e) => onStep({ analysis: 'sweep', step: e.point, steps: e.points, over: e.over, value: e.value, job: e.job, ...(e.figures ? { figures: e.figures } : {}) }),
      }),
    };
  }
  if (request.filename !== undefined) {
    checkPathText(request.filename, 'filename');
    await authorizePath(request.filename, 'filename', ctx);
  }
  const planOptions = planOptionsFor(base, ctx, 1);
  if (request.analysis === 'uniformity') {
    const options = { ...uniformityOptions(request), ...rules(planOptions) };
    const prepared = await assertionsTold(prepareUniformity(options));
    const admitted = await admitShape(prepared.shape, base, ctx);
    return {
      ...admitted, spec: prepared.shape.spec, view,
      run: (control, onStep) => runPreparedUniformity(prepared, {
        ...options, ...control,
        onChunk: (e) => onStep({ analysis: 'uniformity', step: e.chunk, steps: e.chunks, offset: e.offset, bytes: e.bytes, ...(e.mbps === undefined ? {} : { mbps: e.mbps }) }),
      }),
    };
  }
  const options = { ...rotationalOptions(request), ...rules(planOptions) };
  const prepared = await assertionsTold(prepareRotational(options));
  const admitted = await admitShape(prepared.shape, base, ctx);
  return {
    ...admitted, spec: prepared.shape.spec, view,
    run: (control, onStep) => runPreparedRotational(prepared, {
      ...options, ...control,
      onBatch: (e) => onStep({ analysis: 'rotational', step: e.done, steps: e.total }),
    }),
  };
}
