/**
 * Members played as the member agent plays them, where no member runs (moto starts no
 * instance): each object written to the member's own prefix of the study's bucket, made through
 * the contract's schemas (src/api/study-objects.ts), as a member's role would put it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import { memberDoneSchema, memberObjectKey, memberProgressSchema } from '../../src/api/study-objects.js';
import { sha256Hex } from '../../src/fleet/index.js';

/** A result fio's JSON contract takes, as a member's run writes it. */
export const MEMBER_RESULT = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'publish', 'aws-ssd-vol-a.json'));

export class PlayedMembers {
  constructor(private readonly s3: S3Client, private readonly bucket: string) {}

  private async put(fleetId: string, label: string, name: 'progress' | 'done' | 'result', body: string | Buffer): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: memberObjectKey(fleetId, label, name), Body: body, ServerSideEncryption: 'AES256' }));
  }

  /** Its progress.json: test `index` of `total`, `percent` done, `etaS` left. */
  async progress(fleetId: string, label: string, index: number, total: number, percent: number, etaS: number): Promise<void> {
    await this.put(fleetId, label, 'progress', JSON.stringify(memberProgressSchema.parse({
      label, at: new Date(Date.now() + index).toISOString(), step: 'running', test: `test ${index}`, test_index: index, tests_total: total, percent, eta_s: etaS, iops: 3000,
    })));
  }

  /** Its result, then its done.json naming the result's SHA-256. */
  async done(fleetId: string, label: string, result: Buffer = MEMBER_RESULT): Promise<void> {
    await this.put(fleetId, label, 'result', result);
    await this.put(fleetId, label, 'done', JSON.stringify(memberDoneSchema.parse({
      label, status: 'ok', finished_at: new Date().toISOString(), result_sha256: sha256Hex(result), exit_code: 0,
    })));
  }
}
