/**
 * A plan against the account's quotas, where Service Quotas may be read: the On-Demand Standard
 * vCPUs (ec2 L-1216C47A: A, C, D, H, I, M, R, T and Z instances running or pending) and the
 * region's provisioned IOPS of io1 (ebs L-B3A130E6) and io2 (ebs L-8D977E7E) volumes. What the
 * plan needs is set against what is left (the quota less what the account uses now); a plan over
 * is refused with the numbers, before CloudFormation makes the stacks that would fit and then
 * tears them down. A read the caller may not make is a warning.
 */
import { DescribeInstancesCommand, DescribeInstanceTypesCommand, DescribeVolumesCommand, type _InstanceType } from '@aws-sdk/client-ec2';
import { GetAWSDefaultServiceQuotaCommand, GetServiceQuotaCommand } from '@aws-sdk/client-service-quotas';

import { advisory, emptyFinding, grouped, mergeFindings, whyNot, type AccountFinding } from './account-read.js';
import type { FleetClients } from './aws.js';
import type { FleetPlan } from './plan.js';

export const STANDARD_VCPU_QUOTA = { service: 'ec2', code: 'L-1216C47A', name: 'On-Demand Standard (A, C, D, H, I, M, R, T, Z) vCPUs' } as const;
export const IOPS_QUOTAS = {
  io1: { service: 'ebs', code: 'L-B3A130E6', name: 'IOPS for Provisioned IOPS SSD (io1) volumes' },
  io2: { service: 'ebs', code: 'L-8D977E7E', name: 'IOPS for Provisioned IOPS SSD (io2) volumes' },
} as const;

/** The families the Standard quota counts: A, C, D, H, I, M, R, T, Z (not hpc, inf, dl, trn, mac: their own). */
export function standardFamily(instanceType: string): boolean {
  return /^[acdhimrtz][a-z]*\d/.test(instanceType) && !/^(hpc|inf|dl|trn|mac)\d/.test(instanceType);
}

const LIVE = ['pending', 'running'];

/**
 * A quota's value: the applied one, else AWS's default (a quota never raised may have no applied
 * value); or why there is none, naming the call.
 */
async function quotaValue(clients: FleetClients, q: { service: string; code: string }): Promise<{ value: number } | { why: string }> {
  const asked = { ServiceCode: q.service, QuotaCode: q.code };
  const applied = await advisory(() => clients.quotas.send(new GetServiceQuotaCommand(asked)));
  if ('ok' in applied && applied.ok.Quota?.Value !== undefined) return { value: applied.ok.Quota.Value };
  if ('ok' in applied) return { why: `servicequotas:GetServiceQuota gave no value for ${q.code}` };
  if (!('failed' in applied) || !/NoSuchResource/.test(applied.name)) return { why: whyNot('servicequotas:GetServiceQuota', applied) };
  const byDefault = await advisory(() => clients.quotas.send(new GetAWSDefaultServiceQuotaCommand(asked)));
  if ('ok' in byDefault && byDefault.ok.Quota?.Value !== undefined) return { value: byDefault.ok.Quota.Value };
  return { why: 'ok' in byDefault ? `servicequotas:GetAWSDefaultServiceQuota gave no value for ${q.code}` : whyNot('servicequotas:GetAWSDefaultServiceQuota', byDefault) };
}

/** vCPUs by instance type (DescribeInstanceTypes, 100 a call). */
async function vcpusOf(clients: FleetClients, types: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < types.length; i += 100) {
    // Names from the plan and from DescribeInstances: EC2 answers for those it knows.
    const page = await clients.ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: types.slice(i, i + 100) as _InstanceType[] }));
    for (const t of page.InstanceTypes ?? []) if (t.InstanceType && t.VCpuInfo?.DefaultVCpus) out.set(t.InstanceType, t.VCpuInfo.DefaultVCpus);
  }
  return out;
}

/** The Standard vCPUs the account's running and pending On-Demand instances hold now. */
async function standardVcpusInUse(clients: FleetClients): Promise<number> {
  const types: string[] = [];
  let NextToken: string | undefined;
  do {
    const page = await clients.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-state-name', Values: LIVE }], NextToken }));
    for (const i of (page.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
      // Spot instances count against the Spot quota, not this one.
      if (i.InstanceType && standardFamily(i.InstanceType) && i.InstanceLifecycle !== 'spot') types.push(i.InstanceType);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  const vcpus = await vcpusOf(clients, [...new Set(types)]);
  return types.reduce((n, t) => n + (vcpus.get(t) ?? 0), 0);
}

/** Needs against a quota: a line, or a refusal with the numbers. */
function weigh(finding: AccountFinding, q: { code: string; name: string }, needs: number, what: string, quota: number, inUse: number | undefined, fix: { field: string; accepted: string }): void {
  const used = inUse ?? 0;
  const left = Math.max(0, quota - used);
  const numbers = `quota ${grouped(quota)}, ${inUse === undefined ? 'use not known' : `${grouped(used)} in use`}, ${grouped(left)} left`;
  if (needs <= left) {
    finding.lines.push(`${q.name} (${q.code}): the plan needs ${grouped(needs)} (${what}); ${numbers}`);
    return;
  }
  finding.refusals.push({
    message: `the plan needs ${grouped(needs)} ${q.name} (${what}), and quota ${q.code} leaves ${grouped(left)} (${numbers}): ` +
      `ask for ${grouped(used + needs)} or more in Service Quotas, or plan less`,
    field: fix.field, accepted: `${fix.accepted}, or quota ${q.code} raised to ${grouped(used + needs)}`,
  });
}

async function vcpuQuota(plan: FleetPlan, clients: FleetClients): Promise<AccountFinding> {
  const finding = emptyFinding();
  const q = STANDARD_VCPU_QUOTA;
  if (!standardFamily(plan.instanceType)) {
    finding.lines.push(`${plan.instanceType} counts against its own family's vCPU quota, which is not checked`);
    return finding;
  }
  const each = await advisory(() => vcpusOf(clients, [plan.instanceType]));
  const per = 'ok' in each ? each.ok.get(plan.instanceType) : undefined;
  if (per === undefined) {
    finding.warnings.push(`the vCPUs of ${plan.instanceType} are not known (${'ok' in each ? 'ec2:DescribeInstanceTypes did not say' : whyNot('ec2:DescribeInstanceTypes', each)}): quota ${q.code} is not checked`);
    return finding;
  }
  const needs = per * plan.members.length;
  const quota = await quotaValue(clients, q);
  if ('why' in quota) {
    finding.warnings.push(`${quota.why}: the plan's ${needs} ${q.name} are not checked against quota ${q.code}`);
    return finding;
  }
  const inUse = await advisory(() => standardVcpusInUse(clients));
  if (!('ok' in inUse)) finding.warnings.push(`${whyNot('ec2:DescribeInstances', inUse)}: the vCPUs in use are not known, so quota ${q.code} is taken as all left`);
  weigh(finding, q, needs, `${plan.members.length} × ${plan.instanceType}, ${per} each`, quota.value, 'ok' in inUse ? inUse.ok : undefined, {
    field: '--instance', accepted: `fewer or smaller instances: at most ${Math.floor(quota.value / per)} × ${plan.instanceType} in an empty account`,
  });
  return finding;
}

/** The provisioned IOPS of the region's volumes of `type` now. */
async function iopsInUse(clients: FleetClients, type: string): Promise<number> {
  let n = 0;
  let NextToken: string | undefined;
  do {
    const page = await clients.ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: 'volume-type', Values: [type] }], NextToken }));
    for (const v of page.Volumes ?? []) n += v.Iops ?? 0;
    NextToken = page.NextToken;
  } while (NextToken);
  return n;
}

async function iopsQuota(plan: FleetPlan, clients: FleetClients, type: keyof typeof IOPS_QUOTAS): Promise<AccountFinding> {
  const finding = emptyFinding();
  const members = plan.members.filter((m) => m.volume.type === type);
  if (members.length === 0) return finding;
  const q = IOPS_QUOTAS[type];
  const needs = members.reduce((n, m) => n + (m.cloudVolume?.iops ?? m.volume.iops ?? 0), 0);
  const quota = await quotaValue(clients, q);
  if ('why' in quota) {
    finding.warnings.push(`${quota.why}: the plan's ${grouped(needs)} ${type} IOPS are not checked against quota ${q.code}`);
    return finding;
  }
  const inUse = await advisory(() => iopsInUse(clients, type));
  if (!('ok' in inUse)) finding.warnings.push(`${whyNot('ec2:DescribeVolumes', inUse)}: the ${type} IOPS in use are not known, so quota ${q.code} is taken as all left`);
  weigh(finding, q, needs, members.map((m) => m.label).join(', '), quota.value, 'ok' in inUse ? inUse.ok : undefined, {
    field: '--volumes', accepted: `${type} volumes with fewer IOPS`,
  });
  return finding;
}

/** The plan against the vCPU and IOPS quotas. */
export async function checkQuotas(plan: FleetPlan, clients: FleetClients): Promise<AccountFinding> {
  return mergeFindings(await vcpuQuota(plan, clients), await iopsQuota(plan, clients, 'io1'), await iopsQuota(plan, clients, 'io2'));
}
