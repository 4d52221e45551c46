/**
 * `volbench fleet plan`: what a study would create (one instance per volume), what each test is
 * entitled to, and what it would cost; no AWS call, unless --check-account reads the account as
 * `up` would (the volumes' key, the quotas). `up` and `compare` make the same plan first.
 */
import { readFileSync } from 'node:fs';

import { checkCostBasis, checkCostScope } from '../../cloud/cost.js';
import { VolbenchError } from '../../errors.js';
import {
  checkAccount, checkFleetId, fleetClients, fleetVolumes, formatAccount, formatPlan, jobFileSeconds, parseTagFlags, parseTtl, planFleet, refuseAccount, type FleetPlan,
} from '../../fleet/index.js';
import type { FleetSubcommand } from './context.js';
import { need, PLAN_FLAGS, region, type FleetValues } from './flags.js';
import { print } from './print.js';

/** The --job file's text. */
export function jobText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: cannot read --job ${file}: ${(cause as Error).message}`, { field: '--job', accepted: 'a fio job file', cause });
  }
}

/** --strict: a plan with any finding is not made, naming each. */
function refuseFindings(plan: FleetPlan): void {
  if (plan.findings.length === 0) return;
  const named = plan.findings.map((f) => `${f.kind} (${f.label}): ${f.message}`).join('; ');
  throw new VolbenchError('EINVALID_PLAN', `fleet: --strict and ${plan.findings.length} finding${plan.findings.length > 1 ? 's' : ''}: ${named}`, {
    field: '--strict', accepted: `a plan without findings (${[...new Set(plan.findings.map((f) => f.kind))].join(', ')}), or no --strict`,
  });
}

/** The plan the flags describe; a job file (--job) runs instead of the suites, and times the study. */
export function planFrom(values: FleetValues): FleetPlan {
  const workloadSeconds = values.job ? jobFileSeconds(jobText(values.job)) : undefined;
  const instanceType = values.instance ?? 'm6i.large';
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(instanceType)) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: '${instanceType}' is not an instance type`, { field: '--instance', accepted: 'e.g. m6i.large' });
  }
  const volumes = fleetVolumes(need(values, 'volumes', 'e.g. gp3:500g,io2:500g:iops=16000'), instanceType);
  const plan = planFleet({
    volumes, instanceType, region: region(values), suite: values.suite, workloadSeconds,
    ...(values.runtime !== undefined ? { runtime: values.runtime } : {}), precondition: !values['no-precondition'],
    cost: checkCostScope(values.cost), basis: checkCostBasis(values['cost-basis']),
    ...(values.ttl ? { ttlSec: parseTtl(values.ttl) } : {}),
    ...(values['fleet-id'] !== undefined ? { fleetId: checkFleetId(values['fleet-id'], '--fleet-id') } : {}),
    account: { tags: parseTagFlags(values.tag), noPublicIp: values['no-public-ip'], ebsKmsKeyArn: values['ebs-kms-key'] },
  });
  if (values.strict) refuseFindings(plan);
  return values.job ? { ...plan, suite: `job file ${values.job}` } : plan;
}

export const plan: FleetSubcommand = {
  flags: [...PLAN_FLAGS, 'check-account'],
  async run({ values, io }) {
    const made = planFrom(values);
    if (!values['check-account']) {
      print(io, values, made, formatPlan(made));
      return 0;
    }
    // The account read as up reads it (nothing is created); a plan it cannot hold exits 2 after the plan is printed.
    const clients = fleetClients({ region: made.region, profile: values.profile });
    try {
      const { finding, accountId } = await checkAccount(made, clients);
      print(io, values, { ...made, account_read: finding }, `${formatPlan(made)}${formatAccount(made.region, finding, accountId).join('\n')}\n`);
      refuseAccount(finding);
      return 0;
    } finally {
      clients.destroy();
    }
  },
};
