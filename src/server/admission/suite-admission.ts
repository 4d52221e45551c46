/**
 * A suite run is admitted like a spec run: the suite's job file with the request's overrides
 * is the spec, and every check admitSpec makes (paths, block device writes, runtime, size and
 * instance limits) applies to it. The request's own paths are checked against the roots first,
 * before the library looks at them (it stats a block device suite's filename). Problems are
 * told in the request's terms: the field is one the client can change, or `suite`.
 */
import { join } from 'node:path';

import { VolbenchError } from '../../errors.js';
import type { JobSpec } from '../../jobspec/types.js';
import { applyOverrides, loadSuite, type Suite, type SuiteOverrides } from '../../suites/index.js';
import { admitSpec, type AdmissionContext, type AdmitOptions, type AdmittedSpec } from './spec-admission.js';
import { authorizePath, checkPathText } from './path-policy.js';
import { HttpProblem } from '../problems/http-problem.js';
import type { TargetRoot } from './roots.js';
import type { SuiteRunRequest } from '../../api/run-request.js';
import { ownValue } from '../../own-key.js';

export interface AdmittedSuite extends AdmittedSpec {
  suite: Suite;
  /** The suite's job file with the overrides applied. */
  spec: JobSpec;
  loops: number;
}

/** The request's target, else the default root: a directory root as directory, a device root as filename. */
function targetOf(request: SuiteRunRequest, base: TargetRoot): SuiteOverrides {
  const { directory, filename } = request;
  if (directory === undefined && filename === undefined) {
    return base.kind === 'directory' ? { directory: base.realPath } : { filename: base.realPath };
  }
  return { ...(directory === undefined ? {} : { directory }), ...(filename === undefined ? {} : { filename }) };
}

async function checkTarget({ directory, filename }: SuiteOverrides, ctx: AdmissionContext): Promise<void> {
  if (directory !== undefined) {
    checkPathText(directory, 'directory');
    await authorizePath(directory, 'directory', ctx);
  }
  if (filename !== undefined) {
    checkPathText(filename, 'filename', directory !== undefined);
    await authorizePath(directory === undefined ? filename : join(directory, filename), 'filename', ctx);
  }
}

/**
 * The request field behind an option of the suite's spec. A ramp or start delay counts against
 * the runtime budget, and a block device refused for writing is the target the client chose;
 * any other option is the suite's own.
 */
const REQUEST_FIELDS: Record<string, string> = {
  directory: 'directory',
  filename: 'filename',
  runtime: 'runtime',
  ramp_time: 'runtime',
  startdelay: 'runtime',
  size: 'size',
  rw: 'filename',
};

function requestField(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const option = field.slice(field.lastIndexOf('.') + 1);
  return ownValue(REQUEST_FIELDS, option) ?? 'suite';
}

function inRequestTerms(err: unknown, suite: string): unknown {
  const told = (text: string): string => (text.startsWith(`suite ${suite}:`) ? text : `suite ${suite}: ${text}`);
  if (err instanceof HttpProblem) return err.restated(told(err.problem.detail), requestField(err.problem.field));
  if (err instanceof VolbenchError) {
    const field = requestField(err.field);
    return new VolbenchError(err.code, told(err.message), {
      ...(field === undefined ? {} : { field }),
      ...(err.accepted === undefined ? {} : { accepted: err.accepted }),
      cause: err,
    });
  }
  return err;
}

/**
 * Admits `request`; runs without a target go to `base` (?target=, else the first root). A
 * problem with the request's assertions (`bind`) is told as it is: it names `assert[i]` already.
 */
export async function admitSuite(
  request: SuiteRunRequest, base: TargetRoot, ctx: AdmissionContext, bind?: AdmitOptions['bind'], cloud?: AdmitOptions['cloud'],
): Promise<AdmittedSuite> {
  const suite = loadSuite(request.suite);
  const overrides: SuiteOverrides = {
    ...targetOf(request, base),
    ...(request.runtime === undefined ? {} : { runtime: request.runtime }),
    ...(request.size === undefined ? {} : { size: request.size }),
  };
  let bindError: unknown;
  const told: AdmitOptions['bind'] = bind && ((spec) => {
    try {
      return bind(spec);
    } catch (err) {
      bindError = err;
      throw err;
    }
  });
  try {
    await checkTarget(overrides, ctx);
    const spec = applyOverrides(suite, overrides);
    const loops = request.loops ?? suite.loops;
    const admitted = await admitSpec(spec, base, ctx, { repeats: loops, bind: told, cloud });
    return { ...admitted, suite, spec, loops };
  } catch (err) {
    throw err === bindError ? err : inRequestTerms(err, suite.name);
  }
}
