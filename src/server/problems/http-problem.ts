/**
 * Errors as RFC 9457 problem details. Every error the service answers with is one of these:
 * the library's VolbenchError codes map to statuses here, the service's own refusals (auth,
 * paths outside the roots, a full queue) are HttpProblems, and anything else becomes a 500
 * whose detail says nothing about the code that failed.
 */
import { VolbenchError, type VolbenchErrorCode } from '../../errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Path of the offending value in the spec (`jobs[0].bs`), when there is one. */
  field?: string;
  /** What that value may be, in words. */
  accepted?: string;
  /** The library's error code (`EINVALID_VALUE`), when the library refused. */
  code?: string;
  /** The operator's limit that refused a study (`--study-max-cost`, `--study-regions`, ...). */
  limit?: string;
  /** A refused study's estimated cost, in USD. */
  estimated_usd?: number;
}

const PROBLEM_TYPE_PREFIX = 'urn:volbench:problem:';

/** A problem type URI from a short slug; relative to nothing, stable across versions. */
export function problemType(slug: string): string {
  return `${PROBLEM_TYPE_PREFIX}${slug}`;
}

/** An error the service raises itself, carrying the problem it answers with. */
export class HttpProblem extends Error {
  readonly problem: Problem;
  readonly headers: Record<string, string>;

  constructor(status: number, slug: string, title: string, detail: string, extra: Partial<Problem> = {}, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.problem = { type: problemType(slug), title, status, detail, ...extra };
    this.headers = headers;
  }

  /** The same problem told another way: a new detail and field (a suite's spec in the request's terms). */
  restated(detail: string, field: string | undefined): HttpProblem {
    const { type, title, status, accepted, code } = this.problem;
    const extra: Partial<Problem> = { field, accepted, code };
    for (const key of ['field', 'accepted', 'code'] as const) if (extra[key] === undefined) delete extra[key];
    return new HttpProblem(status, type.slice(PROBLEM_TYPE_PREFIX.length), title, detail, extra, this.headers);
  }
}

interface CodeMapping {
  status: number;
  title: string;
}

/**
 * 400 for input that does not parse, 422 for input that parses but cannot run as asked (an
 * unsupported option, contradicting options, an unusable target), 403 for a target volbench
 * must not write, 503 for a target whose device does not answer (ESTUCK: it may later).
 * ENATIVE is the engine failing outside a job: the server's fault, 500.
 */
const CODE_STATUS: Record<VolbenchErrorCode, CodeMapping> = {
  EUNKNOWN_OPTION: { status: 400, title: 'Unknown option' },
  EINVALID_VALUE: { status: 400, title: 'Invalid value' },
  EINVALID_SPEC: { status: 400, title: 'Invalid spec' },
  EINVALID_ARGS: { status: 400, title: 'Invalid arguments' },
  EJOBFILE: { status: 400, title: 'Invalid job file' },
  EUNSUPPORTED_OPTION: { status: 422, title: 'Unsupported option' },
  EINVALID_PLAN: { status: 422, title: 'Options cannot run together' },
  ETARGET: { status: 422, title: 'Target cannot be used' },
  EUNSAFE_TARGET: { status: 403, title: 'Target must not be written' },
  ELIMIT_EXCEEDED: { status: 422, title: 'Run exceeds a limit' },
  ECANCELLED: { status: 409, title: 'Run was cancelled' },
  ESTUCK: { status: 503, title: 'Target not answering' },
  ENATIVE: { status: 500, title: 'Engine failure' },
  ECLOUD: { status: 502, title: 'Cloud provider call failed' },
  EVOLUME_SYNTAX: { status: 400, title: 'Invalid volume' },
  EVOLUME_TYPE: { status: 400, title: 'Unknown volume type' },
  EVOLUME_LIMIT: { status: 400, title: "Volume outside its type's limits" },
  EVOLUME_PLACEMENT: { status: 400, title: 'Volume and instance do not go together' },
  ETLS: { status: 502, title: 'Peer certificate is not the pinned one' },
  EPREFLIGHT: { status: 422, title: 'The account or region cannot hold the fleet as asked' },
  EFLEET_STATE: { status: 422, title: 'A fleet record volbench did not write' },
  ESTUDY_LEASED: { status: 409, title: 'The study is driven by another' },
};

export function statusForCode(code: VolbenchErrorCode): number {
  return CODE_STATUS[code].status;
}

export function problemFromVolbenchError(err: VolbenchError): Problem {
  const { status, title } = CODE_STATUS[err.code] ?? { status: 500, title: 'Engine failure' };
  return {
    type: problemType(err.code.slice(1).toLowerCase().replace(/_/g, '-')),
    title,
    status,
    detail: err.message,
    code: err.code,
    ...(err.field === undefined ? {} : { field: err.field }),
    ...(err.accepted === undefined ? {} : { accepted: err.accepted }),
  };
}

export const INTERNAL_PROBLEM: Problem = {
  type: problemType('internal'),
  title: 'Internal server error',
  status: 500,
  detail: 'the server failed to handle the request; its log has the details',
};

/** The problem an error answers with, or null when it is not one the service knows. */
export function knownProblem(err: unknown): Problem | null {
  if (err instanceof HttpProblem) return err.problem;
  if (err instanceof VolbenchError) return problemFromVolbenchError(err);
  return null;
}
