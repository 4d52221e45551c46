/**
 * Reading and writing a study's objects in its bucket: a read takes no more than the object's
 * cap (the contract's STUDY_OBJECT_MAX_BYTES), however large the object says or turns out to be;
 * a write carries the bucket's encryption header (sse.ts) and, where asked, a condition S3 checks
 * (`If-None-Match: *`, `If-Match: ETag`): what the lease and the spec are written with.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';

import { VolbenchError } from '../../errors.js';
import { awsCall, type FleetClients } from '../aws.js';
import { putEncryption } from '../sse.js';

export interface ReadObject {
  body: Buffer;
  etag?: string;
}

/** Thrown for an object larger than its cap: the caller names whose it is. */
export class TooLarge extends Error {
  constructor(readonly bytes: number | undefined, readonly cap: number, readonly etag?: string) {
    super(bytes === undefined ? `larger than ${cap} bytes` : `${bytes} bytes, above ${cap}`);
  }
}

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/** The object's bytes, at most `cap` of them (TooLarge beyond); undefined when there is none. */
export async function readCapped(clients: FleetClients, bucket: string, key: string, cap: number): Promise<ReadObject | undefined> {
  const out = await awsCall('s3:GetObject', async () => {
    try {
      return await clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (err) {
      if (notFound(err)) return undefined;
      throw err;
    }
  });
  if (!out?.Body) return undefined;
  const stream = out.Body.transformToWebStream();
  if ((out.ContentLength ?? 0) > cap) {
    await stream.cancel().catch(() => {});
    throw new TooLarge(out.ContentLength, cap, out.ETag);
  }
  const chunks: Buffer[] = [];
  let got = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.byteLength;
    if (got > cap) {
      await reader.cancel().catch(() => {});
      throw new TooLarge(undefined, cap, out.ETag);
    }
    chunks.push(Buffer.from(value));
  }
  return { body: Buffer.concat(chunks), ...(out.ETag ? { etag: out.ETag } : {}) };
}

export interface PutCondition {
  /** `*`: only when there is no such object yet. */
  ifNoneMatch?: '*';
  /** Only when the object is still this version. */
  ifMatch?: string;
}

/** What S3 answers a conditional write it did not do: the condition failed (412), or another conditional write to the key was under way (409). */
export type PutRefusal = 'precondition-failed' | 'conflict' | 'missing';

export function putRefusal(err: unknown): PutRefusal | undefined {
  const e = ((err as { cause?: unknown }).cause ?? err) as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (e.name === 'PreconditionFailed' || status === 412) return 'precondition-failed';
  if (e.name === 'ConditionalRequestConflict' || status === 409) return 'conflict';
  if (notFound(e)) return 'missing';
  return undefined;
}

/** Puts `text` at `key`; the new ETag. A failed condition throws (putRefusal tells which). */
export async function putText(clients: FleetClients, bucket: string, key: string, text: string | Buffer, condition: PutCondition = {},
  contentType = 'application/json'): Promise<string | undefined> {
  const sse = await putEncryption(clients, bucket);
  const out = await awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({
    Bucket: bucket, Key: key, Body: text, ContentType: contentType, ...sse,
    ...(condition.ifNoneMatch ? { IfNoneMatch: condition.ifNoneMatch } : {}), ...(condition.ifMatch ? { IfMatch: condition.ifMatch } : {}),
  })));
  return out.ETag;
}

/** A member's object refused: not what a member writes (EFLEET_STATE), naming the member, the object and the field. */
export function refusedObject(label: string, where: string, why: string, field: string): VolbenchError {
  return new VolbenchError('EFLEET_STATE', `member ${label}: ${where} is not what a member writes: ${why}; refused, and nothing was taken from it`, {
    field: `${label}.${field}`, accepted: 'an object as src/api/study-objects.ts describes it',
  });
}
