/**
 * The encryption header every object volbench puts in a fleet's bucket carries. A bucket policy
 * that denies PutObject without `x-amz-server-side-encryption` is common in company accounts, so
 * the header is always sent, saying what the bucket's default encryption says: SSE-S3 (AES256),
 * or SSE-KMS with the bucket's own key (a policy that asks for aws:kms then holds too). The
 * bucket's default is read once per client and bucket (s3:GetEncryptionConfiguration).
 */
import { GetBucketEncryptionCommand, type ServerSideEncryption } from '@aws-sdk/client-s3';

import type { FleetClients } from './aws.js';

export interface PutEncryption {
  ServerSideEncryption: ServerSideEncryption;
  SSEKMSKeyId?: string;
}

const AES256: PutEncryption = { ServerSideEncryption: 'AES256' };

const seen = new WeakMap<object, Map<string, Promise<PutEncryption>>>();

async function read(clients: Pick<FleetClients, 's3'>, bucket: string): Promise<PutEncryption> {
  let out;
  try {
    out = await clients.s3.send(new GetBucketEncryptionCommand({ Bucket: bucket }));
  } catch {
    // No configuration (a bucket from before 2023), or not allowed to read it: SSE-S3, which
    // every bucket accepts unless its policy asks for KMS (then the put names the refusal).
    return AES256;
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
export function putEncryption(clients: Pick<FleetClients, 's3'>, bucket: string): Promise<PutEncryption> {
  let byBucket = seen.get(clients.s3);
  if (!byBucket) seen.set(clients.s3, (byBucket = new Map()));
  let found = byBucket.get(bucket);
  if (!found) {
    found = read(clients, bucket);
    byBucket.set(bucket, found);
  }
  return found;
}
