/**
 * The account read before a fleet is made (`fleet up`, `compare`, and `fleet plan
 * --check-account`): the key its volumes are encrypted with (volume-key.ts), the plan against the
 * vCPU and IOPS quotas (quotas.ts), and what members without a public address need to be
 * reached. Nothing is created; what cannot hold the plan is refused (EPREFLIGHT, exit 2) with
 * every reason and its numbers.
 */
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';

import { VolbenchError } from '../errors.js';
import { advisory, mergeFindings, type AccountFinding } from './account-read.js';
import type { FleetClients } from './aws.js';
import type { FleetPlan } from './plan.js';
import { checkQuotas } from './quotas.js';
import { checkVolumeKeyInAccount } from './volume-key.js';

/** What reaching a member without a public address takes. */
function noPublicIpLine(plan: FleetPlan): string[] {
  if (!plan.account?.noPublicIp) return [];
  const ep = (s: string) => `com.amazonaws.${plan.region}.${s}`;
  return [`no public address (--no-public-ip): interactive members (up, compare --interactive) answer inside the VPC only: give --endpoint-map, through a VPN ` +
    `or an SSM port forward, which needs the interface endpoints ${ep('ssm')}, ${ep('ssmmessages')} and ${ep('ec2messages')} (or a route out through a NAT gateway)`];
}

export async function readAccount(plan: FleetPlan, clients: FleetClients): Promise<AccountFinding> {
  const key = await checkVolumeKeyInAccount(clients, plan.account?.ebsKmsKeyArn);
  const quotas = await checkQuotas(plan, clients);
  return mergeFindings(key, quotas, { lines: noPublicIpLine(plan), warnings: [], refusals: [] });
}

/** `fleet plan --check-account`: the account read, and whose it is (when the caller may ask). */
export async function checkAccount(plan: FleetPlan, clients: FleetClients): Promise<{ finding: AccountFinding; accountId?: string }> {
  const who = await advisory(() => clients.sts.send(new GetCallerIdentityCommand({})));
  const finding = await readAccount(plan, clients);
  return { finding, ...('ok' in who && who.ok.Account ? { accountId: who.ok.Account } : {}) };
}

/** The reading as the plan prints it, under a heading. */
export function formatAccount(region: string, f: AccountFinding, accountId?: string): string[] {
  return [
    '', `the account${accountId ? ` ${accountId}` : ''} in ${region}, read now:`,
    ...f.lines.map((l) => `  ${l}`),
    ...f.refusals.map((r) => `  refused: ${r.message}`),
    ...f.warnings.map((w) => `  warning: ${w}`),
  ];
}

/** EPREFLIGHT naming every refusal and its numbers; nothing when there is none. */
export function refuseAccount(f: AccountFinding): void {
  if (f.refusals.length === 0) return;
  const [first] = f.refusals;
  throw new VolbenchError('EPREFLIGHT', `the account cannot hold the plan: ${f.refusals.map((r) => r.message).join('; ')}; nothing was created`, {
    field: first.field, accepted: f.refusals.map((r) => r.accepted).join('; '),
  });
}
