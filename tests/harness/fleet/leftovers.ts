/**
 * Everything left in moto after a rehearsal, listed by kind and not by tag (moto drops some tags,
 * so a listing by tag could miss what a teardown missed): live stacks, instances not terminated,
 * volumes, SSM parameters, IAM roles and instance profiles, security groups other than a VPC's
 * default, launch templates, EventBridge Scheduler schedules (and groups but the default), and S3
 * objects outside the study's record.
 */
import { CloudFormationClient, ListStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeInstancesCommand, DescribeLaunchTemplatesCommand, DescribeSecurityGroupsCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ListObjectsV2Command, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { DescribeParametersCommand, SSMClient, type ParameterMetadata } from '@aws-sdk/client-ssm';

import type { SdkSettings } from '../sandbox/stack-member.js';
import { listScheduleGroups, listSchedules } from './scheduler.js';

export interface Leftovers {
  /** How many of each kind are left. */
  counts: Record<string, number>;
  items: Record<string, string[]>;
  /** The study's record in S3, kept on purpose: s3://BUCKET/KEY. */
  kept: string[];
  /** What volbench keeps for every fleet of the region on purpose (the study roles' stack and its roles), by kind. */
  account: Record<string, string[]>;
}

/** IAM through its query API (no IAM client in the package's dependencies); moto reads the service from the scope. */
async function iamList(endpoint: string, region: string, action: string, tag: string): Promise<string[]> {
  const names: string[] = [];
  let marker: string | undefined;
  do {
    const body = new URLSearchParams({ Action: action, Version: '2010-05-08', ...(marker ? { Marker: marker } : {}) });
    const res = await fetch(endpoint, {
      method: 'POST', body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${region}/iam/aws4_request, SignedHeaders=host, Signature=0`,
      },
    });
    const xml = await res.text();
    if (res.status !== 200) throw new Error(`iam ${action}: HTTP ${res.status}: ${xml.slice(0, 200)}`);
    for (const m of xml.matchAll(new RegExp(`<member>\\s*(?:(?!</member>)[\\s\\S])*?<${tag}>([^<]+)</${tag}>`, 'g'))) names.push(m[1]);
    marker = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<Marker>([^<]+)<\/Marker>/.exec(xml)?.[1] : undefined;
  } while (marker);
  return [...new Set(names)];
}

/**
 * { counts, items, kept, account } of what is left; `isResult(bucket, key)` says which S3 objects
 * are the study's record, `isAccountWide(kind, item)` what volbench keeps for every fleet of the
 * region (both kept on purpose, listed apart).
 */
export async function leftovers({ region, endpoint, credentials, isResult, isAccountWide = () => false }: SdkSettings & {
  endpoint: string; isResult: (bucket: string, key: string) => boolean; isAccountWide?: (kind: string, item: string) => boolean;
}): Promise<Leftovers> {
  const cfg = { region, endpoint, credentials };
  const cfn = new CloudFormationClient(cfg);
  const ec2 = new EC2Client(cfg);
  const ssm = new SSMClient(cfg);
  const s3 = new S3Client({ ...cfg, forcePathStyle: true });
  try {
    const items: Record<string, string[]> = {};
    const stacks = await cfn.send(new ListStacksCommand({}));
    items.stacks = (stacks.StackSummaries ?? []).filter((s) => s.StackStatus !== 'DELETE_COMPLETE').map((s) => `${s.StackName} ${s.StackStatus}`);
    const inst = await ec2.send(new DescribeInstancesCommand({}));
    // With what made it and when: a leftover says where to look.
    const tag = (i: { Tags?: Array<{ Key?: string; Value?: string }> }, key: string) => i.Tags?.find((t) => t.Key === key)?.Value ?? '-';
    items.instances = (inst.Reservations ?? []).flatMap((r) => r.Instances ?? []).filter((i) => i.State?.Name !== 'terminated')
      .map((i) => `${i.InstanceId} ${i.State?.Name} stack ${tag(i, 'aws:cloudformation:stack-name')} ${tag(i, 'aws:cloudformation:logical-id')} launched ${i.LaunchTime?.toISOString()}`);
    const vols = await ec2.send(new DescribeVolumesCommand({}));
    items.volumes = (vols.Volumes ?? []).map((v) => `${v.VolumeId} ${v.State}`);
    const params: { Parameters: ParameterMetadata[] } = { Parameters: [] };
    let next: string | undefined;
    do {
      const page = await ssm.send(new DescribeParametersCommand({ MaxResults: 50, NextToken: next }));
      params.Parameters.push(...(page.Parameters ?? []));
      next = page.NextToken;
    } while (next);
    // moto serves AWS's public parameters (/aws/service/...) in every account: not the fleet's.
    items.ssm_parameters = (params.Parameters ?? []).map((p) => p.Name!).filter((n) => !n.startsWith('/aws/'));
    items.iam_roles = (await iamList(endpoint, region, 'ListRoles', 'RoleName')).filter((n) => !n.startsWith('AWSServiceRole'));
    items.instance_profiles = await iamList(endpoint, region, 'ListInstanceProfiles', 'InstanceProfileName');
    const sgs = await ec2.send(new DescribeSecurityGroupsCommand({}));
    items.security_groups = (sgs.SecurityGroups ?? []).filter((g) => g.GroupName !== 'default').map((g) => `${g.GroupId} ${g.GroupName}`);
    const lts = await ec2.send(new DescribeLaunchTemplatesCommand({}));
    items.launch_templates = (lts.LaunchTemplates ?? []).map((t) => `${t.LaunchTemplateId} ${t.LaunchTemplateName}`);
    items.schedules = (await listSchedules({ endpoint, region })).map((x) => `${x.GroupName}/${x.Name} ${x.ScheduleExpression ?? ''}`.trim());
    items.schedule_groups = await listScheduleGroups({ endpoint, region });
    items.s3_objects_outside_results = [];
    const kept: string[] = [];
    for (const b of (await s3.send(new ListBucketsCommand({}))).Buckets ?? []) {
      const objects = await s3.send(new ListObjectsV2Command({ Bucket: b.Name }));
      for (const o of objects.Contents ?? []) (isResult(b.Name!, o.Key!) ? kept : items.s3_objects_outside_results).push(`s3://${b.Name}/${o.Key}`);
    }
    const account: Record<string, string[]> = {};
    for (const [kind, list] of Object.entries(items)) {
      const wide = list.filter((item) => isAccountWide(kind, item));
      if (wide.length) account[kind] = wide;
      items[kind] = list.filter((item) => !isAccountWide(kind, item));
    }
    const counts = Object.fromEntries(Object.entries(items).map(([k, v]) => [k, v.length]));
    return { counts, items, kept, account };
  } finally {
    for (const c of [cfn, ec2, ssm, s3]) c.destroy();
  }
}
