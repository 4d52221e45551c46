/**
 * A study request admitted: the body made the plan `volbench fleet plan` would make from the same
 * values, each bad value refused with the CLI's own error for it (EVOLUME_*, EINVALID_ARGS, ...)
 * naming the body's field, then held to the operator's limits (study-config.ts): the region,
 * instance type, volume types and bucket allowed (403), the estimate under --study-max-cost (422,
 * with the estimate). Nothing is made here.
 */
import { VolbenchError } from '../../errors.js';
import { instanceType as catalogInstance } from '../../cloud/index.js';
import { checkAwsRegion } from '../../cloud/aws-clients.js';
import {
  checkStackTags, fleetVolumes, parseTtl, planFleet, volumeOfMember, type FleetPlan, type RunWorkload,
} from '../../fleet/index.js';
import type { StudyRequest } from '../../api/study.js';
import { HttpProblem, problemType } from '../problems/http-problem.js';
import { studyNotAllowed, studyOverCost } from '../problems/service-problems.js';
import { STUDY_DEFAULTS, type StudyConfig } from './study-config.js';

export interface AdmittedStudy {
  plan: FleetPlan;
  workload: RunWorkload;
  bucket: string;
  ttlSec?: number;
  tags?: Record<string, string>;
  /** Each member's volume in the volume grammar. */
  volumes: string[];
}

/** The CLI's field (`--volumes[1].size`, `--no-precondition`) in the body's words (`volumes[1].size`, `precondition`). */
export function bodyField(cliField: string | undefined): string | undefined {
  if (cliField === undefined) return undefined;
  const bare = cliField.replace(/^--/, '');
  if (bare === 'no-precondition') return 'precondition';
  return bare;
}

/** A library refusal (fleet plan's, preflight's) restated with the body's field name; anything else as it is. */
export function inBodyWords(err: unknown): unknown {
  if (!(err instanceof VolbenchError)) return err;
  const field = bodyField(err.field);
  return new VolbenchError(err.code, err.message.replace(/--volumes\b/g, 'volumes').replace(/--(ttl|runtime|suite|instance|region|bucket)\b/g, '$1'), {
    ...(field ? { field } : {}), ...(err.accepted ? { accepted: err.accepted } : {}), cause: err,
  });
}

function restated<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    throw inBodyWords(err);
  }
}

function allowed(list: readonly string[] | undefined, value: string, what: string, field: string, limit: string): void {
  if (list === undefined || list.includes(value)) return;
  throw studyNotAllowed(`${what} ${value}`, field, limit, list);
}

function volumesText(volumes: StudyRequest['volumes']): string {
  if (typeof volumes === 'string') return volumes;
  const joined = volumes.findIndex((v) => v.includes(','));
  if (joined >= 0) {
    throw new VolbenchError('EVOLUME_SYNTAX', `volumes[${joined}]: one volume an item ('${volumes[joined].slice(0, 80)}' holds a comma)`, {
      field: `volumes[${joined}]`, accepted: 'a list of volumes, one each, or one comma-separated text',
    });
  }
  return volumes.join(',');
}

/**
 * The plan of `body` within the operator's limits; refused (problem) otherwise. A refusal by the
 * operator's lists carries the study's estimate too, where one can be made: what asking elsewhere
 * (another region, type or bucket) would cost.
 */
export function admitStudy(body: StudyRequest, config: StudyConfig): AdmittedStudy {
  try {
    return admitWithin(body, config);
  } catch (err) {
    if (!(err instanceof HttpProblem) || err.problem.type !== problemType('study-not-allowed')) throw err;
    const estimate = estimateBeyondLists(body, config);
    if (estimate === undefined) throw err;
    const { type: _type, title, status, detail, ...extra } = err.problem;
    throw new HttpProblem(status, 'study-not-allowed', title, `${detail}; the study is estimated at $${estimate.toFixed(2)}`, { ...extra, estimated_usd: estimate }, err.headers);
  }
}

/** The study's estimate were the operator's lists no limit (the cap none either), or undefined when it cannot be planned. */
function estimateBeyondLists(body: StudyRequest, config: StudyConfig): number | undefined {
  const open: StudyConfig = {
    ...config, regions: [body.region ?? config.regions[0]], instanceTypes: undefined, volumeTypes: undefined,
    bucket: body.bucket ?? config.bucket, buckets: undefined, maxCostUsd: Infinity,
  };
  try {
    return admitWithin(body, open).plan.estimatedUsd;
  } catch {
    return undefined;
  }
}

function admitWithin(body: StudyRequest, config: StudyConfig): AdmittedStudy {
  const region = restated(() => checkAwsRegion(body.region ?? config.regions[0], '--region'));
  allowed(config.regions, region, 'region', 'region', '--study-regions');
  const instanceType = body.instance ?? STUDY_DEFAULTS.instance;
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(instanceType)) {
    throw new VolbenchError('EINVALID_ARGS', `'${instanceType}' is not an instance type`, { field: 'instance', accepted: 'e.g. m6i.large' });
  }
  allowed(config.instanceTypes, instanceType, 'instance type', 'instance', '--study-instance-types');
  if (config.instanceTypes === undefined) catalogInstance(instanceType);
  const bucket = body.bucket ?? config.bucket;
  allowed([config.bucket, ...(config.buckets ?? [])], bucket, 'bucket', 'bucket', '--study-bucket');
  const volumes = restated(() => fleetVolumes(volumesText(body.volumes), instanceType));
  volumes.forEach((v, i) => allowed(config.volumeTypes, v.volume.type, 'volume type', `volumes[${i}]`, '--study-volume-types'));
  const tags = body.tags === undefined ? undefined : checkStackTags(body.tags, 'tags');
  const ttlSec = body.ttl === undefined ? undefined : restated(() => parseTtl(body.ttl!));
  const plan = restated(() => planFleet({
    volumes, instanceType, region, suite: body.suite, precondition: body.precondition ?? true,
    ...(body.runtime !== undefined ? { runtime: body.runtime } : {}), ...(ttlSec !== undefined ? { ttlSec } : {}),
  }));
  if (plan.estimatedUsd === undefined || plan.estimatedUsd > config.maxCostUsd) throw studyOverCost(plan.estimatedUsd, config.maxCostUsd);
  const workload: RunWorkload = { ...(body.runtime !== undefined ? { runtime: body.runtime } : {}), ...(body.precondition === false ? { precondition: false } : {}) };
  return {
    plan, workload, bucket, ...(ttlSec !== undefined ? { ttlSec } : {}), ...(tags && Object.keys(tags).length ? { tags } : {}),
    volumes: plan.members.map((m) => volumeOfMember(m.volume).text),
  };
}
