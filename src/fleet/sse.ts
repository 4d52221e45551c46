/**
 * The encryption header every object volbench puts in a fleet's bucket carries, the CLI's and an
 * autonomous member's alike. A bucket policy that denies PutObject without
 * `x-amz-server-side-encryption` is common in company accounts, so the header is always sent,
 * saying what the bucket's default encryption says: SSE-S3 (AES256), or SSE-KMS with the bucket's
 * key (its own, or aws/s3 when it names none), so a policy that asks for aws:kms holds too. The
 * bucket's default is read once per client and bucket (s3:GetEncryptionConfiguration); when it
 * cannot be read, the caller's fallback (SSE-S3 unless it knows the bucket's key).
 */
import { GetBucketEncryptionCommand, type ServerSideEncryption } from '@aws-sdk/client-s3';

import type { FleetClients } from './aws.js';

export interface PutEncryption {
  ServerSideEncryption: ServerSideEncryption;
  SSEKMSKeyId?: string;
}

const AES256: PutEncryption = { ServerSideEncryption: 'AES256' };

const seen = new WeakMap<object, Map<string, Promise<PutEncryption>>>();

async function read(clients: Pick<FleetClients, 's3'>, bucket: string, fallback: PutEncryption): Promise<PutEncryption> {
  let out;
  try {
    out = await clients.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket }));
  } catch (err) {
    // No configuration (a bucket from before 2023): SSE-S3. Not allowed to read it: the fallback,
    // SSE-S3 unless the caller knows the bucket's key (a policy asking for KMS then names the refusal).
    return /ServerSideEncryptionConfigurationNotFound/.test((err as Error).name) ? AES256 : fallback;
  }
  for (const rule of out.ServerSideEncryptionConfiguration?.Rules ?? []) {
    const by = rule.ApplyServerSideEncryptionByDefault;
    if (by?.SSEAlgorithm === 'aws:kms' || by?.SSEAlgorithm === 'aws:kms:dsse') {
      return { ServerSideEncryption: by.SSEAlgorithm, ...(by.KMSMasterKeyID ? { SSEKMSKeyId: by.KMSMasterKeyID } : {}) };
    }
  }
  return AES256;
}

/** The header's fields for a PutObject to `bucket`, as its default encryption says. */
export function putEncryption(clients: Pick<FleetClients, 's3'>, bucket: string, fallback: PutEncryption = AES256): Promise<PutEncryption> {
  let byBucket = seen.get(clients.s3);
  if (!byBucket) seen.set(clients.s3, (byBucket = new Map()));
  let found = byBucket.get(bucket);
  if (!found) {
    found = read(clients, bucket, fallback);
    byBucket.set(bucket, found);
  }
  return found;
}
