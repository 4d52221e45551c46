/**
 * The member's side of the study's bucket: it reads the spec and writes its own four objects
 * (progress, result, done, log) under FLEET/LABEL/, and nothing else. The keys come from the
 * contract (src/api/study-objects.ts) and are checked once more to lie under the member's prefix,
 * so a change elsewhere cannot make a member write beside another's results; the role's policy
 * (infra/cloudformation/instance.yaml) refuses the rest anyway.
 *
 * Every PutObject names its encryption (`x-amz-server-side-encryption`): a bucket policy may deny
 * any that does not. The rule is the CLI's (sse.ts): what the bucket's default encryption says,
 * which the member's role may read; if it cannot, its stack's PackageKmsKeyArn (the bucket's own
 * key that preflight found) says SSE-KMS under it, and none SSE-S3.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

import { memberObjectKey, memberPrefix, STUDY_OBJECT_MAX_BYTES, studyObjectKey } from '../../api/study-objects.js';
import { VolbenchError } from '../../errors.js';
import { awsCall } from '../aws.js';
import { putEncryption, type PutEncryption } from '../sse.js';

export type MemberObject = 'progress' | 'result' | 'done' | 'log';

/** The encryption header of a member's writes when the bucket's default cannot be read. */
export function serverSideEncryption(kmsKeyArn?: string): PutEncryption {
  return kmsKeyArn ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: kmsKeyArn } : { ServerSideEncryption: 'AES256' };
}

export interface SpecBytes {
  bytes: Buffer;
  sha256: string;
}

export class MemberObjects {
  constructor(
    private readonly s3: S3Client,
    readonly bucket: string,
    readonly fleetId: string,
    readonly label: string,
    private readonly kmsKeyArn?: string,
  ) {
    // Checked once, here: a label that names no member folder writes nothing.
    memberPrefix(fleetId, label);
  }

  /** Where this member may write: FLEET/LABEL/. */
  get prefix(): string {
    return memberPrefix(this.fleetId, this.label);
  }

  /** Writes one of the member's objects; its key, for the log. */
  async put(name: MemberObject, body: string, contentType = name === 'log' ? 'text/plain; charset=utf-8' : 'application/json'): Promise<string> {
    const Key = memberObjectKey(this.fleetId, this.label, name);
    if (!Key.startsWith(this.prefix) || Key.slice(this.prefix.length).includes('/')) {
      throw new VolbenchError('EFLEET_STATE', `${Key} is not under ${this.prefix}: a member writes its own objects only`, { field: 'label', accepted: 'a member label' });
    }
    const cap = STUDY_OBJECT_MAX_BYTES[name];
    if (Buffer.byteLength(body) > cap) {
      throw new VolbenchError('ELIMIT_EXCEEDED', `${name} is ${Buffer.byteLength(body)} bytes, over the ${cap} the study reads of it`, { field: name, accepted: `at most ${cap} bytes` });
    }
    const sse = await putEncryption({ s3: this.s3 }, this.bucket, serverSideEncryption(this.kmsKeyArn));
    await awsCall('s3:PutObject', () => this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentType: contentType, ...sse })));
    return Key;
  }

  /** The study's spec as stored, read whole but never past its cap, with its SHA-256. */
  async specBytes(): Promise<SpecBytes> {
    const Key = studyObjectKey(this.fleetId, 'spec');
    const cap = STUDY_OBJECT_MAX_BYTES.spec;
    const out = await awsCall('s3:GetObject', () => this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key })));
    const tooLarge = () => new VolbenchError('EFLEET_STATE', `s3://${this.bucket}/${Key} is over ${cap} bytes: not a spec the study wrote`, {
      field: 'spec', accepted: `at most ${cap} bytes`,
    });
    if ((out.ContentLength ?? 0) > cap) {
      await out.Body?.transformToWebStream().cancel().catch(() => {});
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of out.Body!.transformToWebStream() as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > cap) throw tooLarge();
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
}
