/**
 * Every problem the service raises itself, one constructor per type, in one place (as
 * fastify's lib/errors.js keeps its errors): its status and title are fixed here, the detail
 * and field come from the caller. The library's own errors map to problems in http-problem.ts.
 */
import { HttpProblem } from './http-problem.js';

interface RootNames {
  path: string;
}

function names(roots: readonly RootNames[]): string {
  return roots.map((r) => r.path).join(', ');
}

// 400: the request does not say something the service can act on.

export function invalidRequest(detail: string, field: string, accepted: string): HttpProblem {
  return new HttpProblem(400, 'invalid-request', 'Invalid request', detail, { field, accepted });
}

export function invalidPath(field: string, detail: string): HttpProblem {
  return new HttpProblem(400, 'invalid-path', 'Invalid path', detail, {
    field,
    accepted: 'an absolute path under a target root, without .. components or NUL bytes',
  });
}

export function invalidAssertion(detail: string, extra: { field: string; code?: string; accepted?: string }): HttpProblem {
  return new HttpProblem(400, 'invalid-assertion', 'Invalid assertion', detail, extra);
}

/** ?target= names no root: as submitted, or (for a stored run) no longer. */
export function unknownTarget(target: string, roots: readonly RootNames[], still = false): HttpProblem {
  return new HttpProblem(400, 'unknown-target', 'Unknown target',
    `?target=${target} is ${still ? 'no longer ' : 'not '}a target root of this server`, {
      field: 'query.target',
      accepted: names(roots),
    });
}

// 401, 403: who may do what, where.

export function unauthorized(missing: boolean, challenge: string): HttpProblem {
  return new HttpProblem(401, 'unauthorized', 'Unauthorized',
    missing ? 'this route needs an Authorization: Bearer <token> header' : 'the token is not valid', {},
    { 'www-authenticate': challenge });
}

export function pathOutsideRoots(shown: string, field: string, roots: readonly RootNames[]): HttpProblem {
  return new HttpProblem(403, 'path-outside-roots', 'Path outside the target roots',
    `${shown} is not under a target root of this server (${names(roots)})`, { field, accepted: `paths under ${names(roots)}` });
}

export function reservedPath(path: string, field: string): HttpProblem {
  return new HttpProblem(403, 'reserved-path', "Path inside the server's data directory",
    `${path} is (a link to) a file of the server's data directory, which runs must not touch`, { field });
}

export function blockDeviceNotARoot(path: string, field: string, deviceRoots: readonly RootNames[]): HttpProblem {
  return new HttpProblem(403, 'block-device-not-a-root', 'Block device is not a target root',
    `${path} is a block device; block devices are usable only when a --target-root names the device itself`, {
      field,
      accepted: names(deviceRoots) || 'no block device roots are configured',
    });
}

export function blockWriteNotAllowed(rw: string, device: string, field: string): HttpProblem {
  return new HttpProblem(403, 'block-write-not-allowed', 'Block device writes not allowed',
    `rw=${rw} writes to block device ${device}; this server allows it only for devices started with --allow-block-write`, {
      field,
      accepted: 'read-only workloads on this device',
    });
}

export function logNotAFile(log: string, resolved: string, field: string): HttpProblem {
  return new HttpProblem(403, 'log-not-a-file', 'Log path is not a regular file',
    `${log} (resolves to ${resolved}) is not a regular file; logs are written only as files`, {
      field,
      accepted: 'a new or regular file under a directory root',
    });
}

// 404, 409: the state of things.

export function runNotFound(id: string): HttpProblem {
  return new HttpProblem(404, 'run-not-found', 'Run not found', `there is no run ${id} (it may have been pruned by --keep-runs)`);
}

export function suiteNotFound(name: string, known: readonly string[]): HttpProblem {
  return new HttpProblem(404, 'suite-not-found', 'Suite not found', `there is no suite named '${name}'`, { accepted: known.join(', ') });
}

export function volumeTypeNotFound(detail: string, accepted: string | undefined): HttpProblem {
  return new HttpProblem(404, 'volume-type-not-found', 'Volume type not found', detail, accepted ? { accepted } : {});
}

export function noResult(id: string, status: string): HttpProblem {
  return new HttpProblem(404, 'no-result', 'Run has no result', `run ${id} ended ${status} without running any I/O`);
}

export function runNotEnded(id: string, status: string): HttpProblem {
  return new HttpProblem(409, 'run-not-ended', 'Run has not ended', `run ${id} is ${status}; its result is here once it ends`);
}

export function targetChanged(now: readonly string[], queued: readonly string[]): HttpProblem {
  return new HttpProblem(409, 'target-changed', 'Target changed',
    `the run's targets are now on ${now.join(', ')}, not on the device(s) it was queued for (${queued.join(', ')})`);
}

// 422, 429: the run as asked cannot run, or not now.

export function assertionNotApplicable(detail: string, extra: { field: string; code?: string; accepted?: string }): HttpProblem {
  return new HttpProblem(422, 'assertion-not-applicable', 'Assertion does not apply to this run', detail, extra);
}

export type ReportBudgetName = 'deadline' | 'memory' | 'size';

const REPORT_ACCEPTED = 'a smaller report: fewer runs, or format=md, csv or json in place of html';

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Number((bytes / 1024 / 1024).toFixed(1))} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/** A report over one of the service's report budgets; `field` names the budget's flag. */
export function reportTooLarge(budget: ReportBudgetName, limits: { timeoutMs: number; maxBytes: number; memoryBytes: number }, bytes?: number): HttpProblem {
  const [field, detail] = {
    deadline: ['--report-timeout', `the report was not rendered within ${limits.timeoutMs / 1000} s, the longest a report may take (--report-timeout)`],
    memory: ['--report-memory', `rendering the report needed more than ${sizeText(limits.memoryBytes)} of memory, the most a report may use (--report-memory)`],
    size: ['--report-max-size', `the report is ${sizeText(bytes ?? 0)}, more than the ${sizeText(limits.maxBytes)} a report may be (--report-max-size)`],
  }[budget];
  return new HttpProblem(422, 'report-too-large', 'Report too large', detail, { field, accepted: REPORT_ACCEPTED });
}

export function reportQueueFull(limit: number, retryAfterSec: number): HttpProblem {
  return new HttpProblem(429, 'report-queue-full', 'Report queue full',
    `${limit} reports are already waiting to be rendered (--report-queue-limit); try again later`, {},
    { 'retry-after': String(retryAfterSec) });
}

export function queueFull(limit: number, retryAfterSec: number): HttpProblem {
  return new HttpProblem(429, 'queue-full', 'Queue full', `${limit} runs are already waiting (--queue-limit); try again later`, {},
    { 'retry-after': String(retryAfterSec) });
}

// 503, 507: the service cannot take the request now.

export function shuttingDown(): HttpProblem {
  return new HttpProblem(503, 'shutting-down', 'Service shutting down',
    'the server is shutting down; try again once it is back', {}, { connection: 'close' });
}

/** `what` says what the store did not take ("the run cannot be recorded"). */
export function storeFull(dataDir: string, what: string): HttpProblem {
  return new HttpProblem(507, 'store-full', 'Store full', `${what}: the filesystem of the service's data directory ${dataDir} is full`);
}

export function storeUnavailable(dataDir: string, what: string, code: string): HttpProblem {
  return new HttpProblem(503, 'store-unavailable', 'Store unavailable',
    `${what}: the store in the service's data directory ${dataDir} refuses writes (${code})`);
}

// Studies: who may spend money, and on what.

/** A study route on a service started without --studies. */
export function studiesDisabled(): HttpProblem {
  return new HttpProblem(403, 'studies-disabled', 'Studies are off',
    'this service does not start studies: its operator did not give --studies (studies create instances and volumes that bill)', {
      field: '--studies', accepted: 'a service started with --studies',
    });
}

/** A region, instance type, volume type or bucket the operator did not allow. */
export function studyNotAllowed(detail: string, field: string, limit: string, allowed: readonly string[]): HttpProblem {
  return new HttpProblem(403, 'study-not-allowed', 'Not allowed for studies', `${detail}: this service allows ${allowed.join(', ')} (${limit})`, {
    field, accepted: allowed.join(', '), limit,
  });
}

/** A study whose estimate is over --study-max-cost, or unknown. */
export function studyOverCost(estimatedUsd: number | undefined, maxUsd: number): HttpProblem {
  const detail = estimatedUsd === undefined
    ? `the study's cost cannot be estimated (no price for its instance type), and this service starts only studies estimated at $${maxUsd.toFixed(2)} or less (--study-max-cost)`
    : `the study is estimated at $${estimatedUsd.toFixed(2)}, above the $${maxUsd.toFixed(2)} this service allows a study (--study-max-cost)`;
  return new HttpProblem(422, 'study-over-cost', 'Study over the cost cap', detail, {
    field: 'volumes', accepted: `a study estimated at $${maxUsd.toFixed(2)} or less: fewer or smaller volumes, a shorter runtime, a cheaper instance`,
    limit: '--study-max-cost', ...(estimatedUsd === undefined ? {} : { estimated_usd: estimatedUsd }),
  });
}

export function tooManyStudies(open: number, max: number, estimatedUsd: number | undefined): HttpProblem {
  return new HttpProblem(422, 'too-many-studies', 'Too many studies at once',
    `${open} studies are open, the most this service runs at once (--study-max-concurrent); this one was not started`, {
      accepted: 'a study once one of the open ones is done', limit: '--study-max-concurrent', ...(estimatedUsd === undefined ? {} : { estimated_usd: estimatedUsd }),
    });
}

export function studyNotFound(id: string): HttpProblem {
  return new HttpProblem(404, 'study-not-found', 'Study not found', `this service started no study ${id.slice(0, 40)}`);
}

/** The service has no bundle for the members' architecture. */
export function noStudyPackage(arch: string, instance: string): HttpProblem {
  return new HttpProblem(422, 'no-study-package', 'No bundle for these members',
    `${instance} members are ${arch}, and this service has no ${arch} bundle for them (--study-package)`, {
      field: 'instance', accepted: 'an instance type of an architecture the service has a bundle for', limit: '--study-package',
    });
}
