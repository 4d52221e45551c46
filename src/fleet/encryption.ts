/**
 * The encryption every PutObject of a fleet names (`x-amz-server-side-encryption`): a bucket
 * policy may deny a write that does not. With the bucket's own KMS key (preflight found it, or
 * the stack's PackageKmsKeyArn), SSE-KMS under that key, so the bucket's default key still
 * applies; SSE-S3 otherwise.
 */
import type { ServerSideEncryption } from '@aws-sdk/client-s3';

export function serverSideEncryption(kmsKeyArn?: string): { ServerSideEncryption: ServerSideEncryption; SSEKMSKeyId?: string } {
  return kmsKeyArn ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: kmsKeyArn } : { ServerSideEncryption: 'AES256' };
}
