/**
 * What a company account asks of a fleet's members besides the plan's figures, given once and
 * kept in the plan (so every driver of a study makes its stacks the same way):
 *
 *   - `tags`: what tag policies and SCPs require at creation (tags.ts);
 *   - `noPublicIp`: the members get no public IPv4 address (an SCP may deny one at launch); the
 *     launch template asks for none, whatever the subnet maps;
 *   - `ebsKmsKeyArn`: the key the members' volumes are encrypted with, instead of the account's
 *     default EBS key (the template's KmsKeyId).
 */
import { VolbenchError } from '../errors.js';
import { checkTags, type FleetTag } from './tags.js';

export interface MemberAccount {
  tags?: FleetTag[];
  noPublicIp?: boolean;
  ebsKmsKeyArn?: string;
}

/** A KMS key ARN (not an alias: IAM statements and the template name keys), single- or multi-Region. */
export const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):(\d{12}):key\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})$/;

/** `--ebs-kms-key`, checked: a key ARN of the fleet's region. */
export function checkVolumeKey(arn: string, region: string, field = '--ebs-kms-key'): string {
  const m = KMS_KEY_ARN.exec(arn);
  if (!m) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: '${arn.slice(0, 120)}' is not a KMS key ARN`, {
      field, accepted: 'arn:aws:kms:REGION:ACCOUNT:key/KEY-ID (a key ARN, not an alias)',
    });
  }
  if (m[1] !== region) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: the key is in ${m[1]}, and the fleet's volumes are in ${region}`, { field, accepted: `a key of ${region}` });
  }
  return arn;
}

/** The account's asks, checked; empty parts left out, and undefined when nothing was asked. */
export function checkMemberAccount(given: MemberAccount, region: string): MemberAccount | undefined {
  const tags = given.tags?.length ? checkTags(given.tags, '--tag') : undefined;
  const asked: MemberAccount = {
    ...(tags ? { tags } : {}),
    ...(given.noPublicIp ? { noPublicIp: true } : {}),
    ...(given.ebsKmsKeyArn ? { ebsKmsKeyArn: checkVolumeKey(given.ebsKmsKeyArn, region) } : {}),
  };
  return Object.keys(asked).length ? asked : undefined;
}

/** The plan's lines for them. */
export function formatMemberAccount(a: MemberAccount): string[] {
  const lines: string[] = [];
  if (a.tags?.length) {
    lines.push(`tags: ${a.tags.map((t) => `${t.Key}=${t.Value}`).join(', ')} on every stack, and on each instance and volume as it is created (the launch template's tag specifications)`);
  }
  if (a.noPublicIp) lines.push('no public IPv4 address on any member (--no-public-ip): the launch template asks for none');
  if (a.ebsKmsKeyArn) lines.push(`volumes encrypted with ${a.ebsKmsKeyArn} (--ebs-kms-key), not the account's default EBS key`);
  return lines;
}
