/**
 * What POST /v1/runs submits, in the form the store keeps and a restart admits again: a spec
 * (JSON, or a fio job file) or a shipped suite, each with assertion texts. admitRequest makes
 * every check before the run is stored and returns what the executor runs.
 */
import type { Assertion } from '../../gates/index.js';
import type { JobSpec, ParsedSpec } from '../../jobspec/types.js';
import type { PreparedSuite } from '../../suites/index.js';
import { admitSpec, type AdmissionContext, type AdmittedSpec } from './spec-admission.js';
import { specFromJobFile } from './job-file.js';
import type { TargetRoot } from './roots.js';
import { bindRunAssertions, parseRunAssertions } from './run-assertions.js';
import type { RunVolume, SuiteRunRequest } from '../../api/run-request.js';
import { checkPlacement, volumeFromJson, type CloudContext } from '../../cloud/index.js';
import type { RunSuiteBody } from '../../api/run.js';
import type { RunRow } from '../store/runs.js';
import { admitSuite } from './suite-admission.js';
import { admitAnalysis, type AdmittedAnalysis } from './analysis-admission.js';
import type { AnalysisRunRequest } from '../../api/analysis-request.js';

export type RunRequest =
  | { kind: 'spec'; spec: JobSpec; jobFile: string | null; asserts: string[]; volume?: RunVolume }
  | { kind: 'suite'; suite: SuiteRunRequest; asserts: string[] }
  | { kind: 'analysis'; analysis: AnalysisRunRequest; asserts: string[] };

/** The volume a spec or suite run says it measures, or null. */
export function requestVolume(request: RunRequest): RunVolume | null {
  if (request.kind === 'spec') return request.volume ?? null;
  if (request.kind === 'suite') return request.suite.volume ?? null;
  return null;
}

/**
 * The volume as the library's planning option, made once from the request's JSON: refusals name
 * `volume.size_gib`, `volume.iops` (with the limit and its source), `volume.instance` (with the
 * closest known type).
 */
function cloudOf(volume: RunVolume | null): CloudContext | undefined {
  if (volume === null) return undefined;
  const { instance, ...figures } = volume;
  const made = volumeFromJson(figures, 'volume');
  checkPlacement(made, instance, 'volume.instance', 'volume.size_gib');
  return { volume: made, ...(instance !== undefined ? { instance } : {}) };
}

export interface AdmittedRun extends AdmittedSpec {
  /** The spec that runs: as submitted, or the suite's job file with its overrides. */
  spec: JobSpec;
  /** Suite runs only: what the library's runPrepared takes. */
  prepared: PreparedSuite | null;
  /** Suite runs only: the suite as the run record shows it. */
  suite: RunSuiteBody | null;
  /** Analysis runs only: how to run it, and the analysis as the run record shows it. */
  analysis: Pick<AdmittedAnalysis, 'run' | 'view'> | null;
}

/** Where a request's assertions sit, for the problem that names one: a job file has no body for them. */
export function assertField(request: RunRequest): string {
  return request.kind === 'spec' && request.jobFile !== null ? 'query.assert' : 'assert';
}

function suiteView(request: SuiteRunRequest, loops: number): RunSuiteBody {
  const { directory, filename, runtime, size } = request;
  const overrides = Object.entries({ directory, filename, runtime, size }).filter(([, value]) => value !== undefined);
  return { name: request.suite, loops, ...Object.fromEntries(overrides) };
}

export async function admitRequest(request: RunRequest, defaultRoot: TargetRoot | null, ctx: AdmissionContext): Promise<AdmittedRun> {
  const field = assertField(request);
  // Parsed first: a malformed assertion is refused without looking at any path.
  const assertions = parseRunAssertions(request.asserts, field);
  const bind = (spec: ParsedSpec): Assertion[] => bindRunAssertions(spec, assertions, field);
  const base = defaultRoot ?? ctx.roots[0];
  const cloud = cloudOf(requestVolume(request));
  if (request.kind === 'spec') {
    const admitted = await admitSpec(request.spec, base, ctx, { bind, cloud });
    return { ...admitted, spec: request.spec, prepared: null, suite: null, analysis: null };
  }
  if (request.kind === 'analysis') {
    const { run, view, ...admitted } = await admitAnalysis(request.analysis, base, ctx, assertions);
    return { ...admitted, prepared: null, suite: null, analysis: { run, view } };
  }
  const { suite, spec, loops, ...admitted } = await admitSuite(request.suite, base, ctx, bind, cloud);
  const { plan } = admitted;
  return {
    ...admitted,
    spec,
    prepared: { suite, parsed: plan.spec, loops, assertions: plan.assertions },
    suite: suiteView(request.suite, loops),
    analysis: null,
  };
}

/** The request a stored run was submitted with, to admit it again after a restart. */
export function storedRequest(run: RunRow): RunRequest {
  if (run.analysis !== null) return { kind: 'analysis', analysis: run.analysis as AnalysisRunRequest, asserts: run.asserts };
  if (run.suite !== null) {
    const { name, ...overrides } = run.suite;
    return { kind: 'suite', suite: { suite: name, ...overrides, ...(run.volume ? { volume: run.volume } : {}) }, asserts: run.asserts };
  }
  const spec = run.jobFile === null ? run.spec : specFromJobFile(run.jobFile);
  return { kind: 'spec', spec, jobFile: run.jobFile, asserts: run.asserts, ...(run.volume ? { volume: run.volume } : {}) };
}
