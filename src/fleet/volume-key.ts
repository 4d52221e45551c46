/**
 * The key the members' volumes are encrypted with: `--ebs-kms-key`, else the account's default
 * EBS key (ec2:GetEbsDefaultKmsKeyId). The template's volumes are `Encrypted: true`, so EC2
 * encrypts them with that key, acting for the stack's service role: when the key is
 * customer-managed (a landing zone's), that role needs kms:CreateGrant,
 * kms:GenerateDataKeyWithoutPlaintext, kms:Decrypt and kms:DescribeKey on it, allowed by the
 * key's policy, or the instance goes pending → terminated ("Client.InternalError") and every
 * stack fails. kms:DescribeKey says whether the key is customer-managed, enabled and a symmetric
 * encryption key; a key EC2 cannot use is refused before anything is made.
 */
import { GetEbsDefaultKmsKeyIdCommand } from '@aws-sdk/client-ec2';
import { DescribeKeyCommand, type KeyMetadata } from '@aws-sdk/client-kms';

import { STUDY_ROLES_STACK } from './study-roles.js';
import { advisory, emptyFinding, whyNot, type AccountFinding } from './account-read.js';
import type { FleetClients } from './aws.js';

/** What EC2 needs of a customer-managed key for the stacks' role, as the documented policy grants it. */
export const VOLUME_KEY_ACTIONS = ['kms:CreateGrant', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:Decrypt', 'kms:DescribeKey'] as const;

const AWS_MANAGED_EBS = /(^|:)alias\/aws\/ebs$/;

function grantsNeeded(what: string, arn: string): string {
  return `${what} ${arn} is customer-managed: the members' stacks act with ${STUDY_ROLES_STACK}'s StackRole, which needs ${VOLUME_KEY_ACTIONS.join(', ')} on it ` +
    '(its EbsKey statement asks for them through EC2; the key\'s policy must allow that role, or allow the account and so IAM)';
}

/** A described key that EC2 cannot encrypt a volume with, refused; a usable one said. */
function judge(what: string, field: string, meta: KeyMetadata, finding: AccountFinding): void {
  const arn = meta.Arn ?? meta.KeyId ?? '?';
  if (meta.KeyState !== 'Enabled') {
    finding.refusals.push({ message: `${what} ${arn} is ${meta.KeyState ?? 'not enabled'}: EC2 cannot encrypt the members' volumes with it`, field, accepted: 'an enabled symmetric KMS key' });
    return;
  }
  if ((meta.KeyUsage ?? 'ENCRYPT_DECRYPT') !== 'ENCRYPT_DECRYPT' || (meta.KeySpec ?? 'SYMMETRIC_DEFAULT') !== 'SYMMETRIC_DEFAULT') {
    finding.refusals.push({ message: `${what} ${arn} is a ${meta.KeySpec} ${meta.KeyUsage} key: EBS encrypts with symmetric encryption keys only`, field, accepted: 'a symmetric encryption key (SYMMETRIC_DEFAULT)' });
    return;
  }
  finding.lines.push(meta.KeyManager === 'AWS' ? `${what}: ${arn}, AWS managed: nothing to grant` : grantsNeeded(what, arn));
}

/** The volumes' key: given (--ebs-kms-key) or the account's default, described, judged. */
export async function checkVolumeKeyInAccount(clients: FleetClients, given: string | undefined): Promise<AccountFinding> {
  const finding = emptyFinding();
  let keyId = given;
  const what = given ? 'the volumes\' key (--ebs-kms-key)' : 'the account\'s default EBS key';
  const field = given ? '--ebs-kms-key' : 'the account\'s default EBS key';
  if (!keyId) {
    const got = await advisory(() => clients.ec2.send(new GetEbsDefaultKmsKeyIdCommand({})));
    if (!('ok' in got)) {
      finding.warnings.push(`${whyNot('ec2:GetEbsDefaultKmsKeyId', got)}: the key the volumes are encrypted with is not known; a customer-managed one needs ` +
        `${VOLUME_KEY_ACTIONS.join(', ')} for ${STUDY_ROLES_STACK}'s StackRole`);
      return finding;
    }
    keyId = got.ok.KmsKeyId;
    if (!keyId || AWS_MANAGED_EBS.test(keyId)) {
      finding.lines.push(`${what}: aws/ebs, AWS managed: nothing to grant`);
      return finding;
    }
  }
  const described = await advisory(() => clients.kms.send(new DescribeKeyCommand({ KeyId: keyId })));
  if ('ok' in described && described.ok.KeyMetadata) {
    judge(what, field, described.ok.KeyMetadata, finding);
  } else if ('failed' in described && /NotFound/.test(described.name)) {
    finding.refusals.push({ message: `${what} ${keyId} does not exist in this region`, field, accepted: 'a KMS key of the fleet\'s region' });
  } else {
    const why = 'ok' in described ? 'kms:DescribeKey answered no key' : whyNot('kms:DescribeKey', described);
    finding.warnings.push(`${what} is ${keyId}, and ${why}: if it is customer-managed, ${STUDY_ROLES_STACK}'s StackRole needs ${VOLUME_KEY_ACTIONS.join(', ')} on it`);
  }
  return finding;
}
