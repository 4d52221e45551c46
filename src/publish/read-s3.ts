/**
 * Results in S3 for a report: `s3://bucket/key.json`, or `s3://bucket/prefix/` for every .json
 * object under the prefix (a fleet writes `<fleet>/results/<label>.json`). The AWS SDK is loaded
 * only when an S3 URL is given; the client is the one factory's (src/cloud/aws-clients.ts).
 */
import { awsCall } from '../cloud/aws-call.js';
import { awsClient, type AwsClientOptions } from '../cloud/aws-clients.js';
import { VolbenchError } from '../errors.js';
import type { ReportInput } from './model.js';
import { MAX_RESULT_BYTES, parseReportInput } from './read-input.js';

/** More objects than any study has volumes; a prefix holding more is named, not read. */
export const MAX_S3_OBJECTS = 1000;

export interface S3Location {
  bucket: string;
  /** A key, or a prefix ending in '/' (or empty: the whole bucket). */
  key: string;
}

export function isS3Url(text: string): boolean {
  return /^s3:\/\//i.test(text);
}

export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/i.exec(url);
  if (!m || url.length > 1100) {
    throw new VolbenchError('EINVALID_ARGS', `${url} is not an S3 URL`, { field: url, accepted: 's3://bucket/key.json or s3://bucket/prefix/' });
  }
  return { bucket: m[1], key: m[2] ?? '' };
}

/** The reports' inputs at an S3 URL: one object, or each .json object under a prefix, in key order. */
export async function readReportS3(url: string, options: AwsClientOptions = {}): Promise<ReportInput[]> {
  const { bucket, key } = parseS3Url(url);
  const { S3Client, GetObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  // A bucket in another region than the client's answers with a redirect the client follows.
  const client = awsClient(S3Client, options, 's3');
  try {
    const keys: string[] = [];
    if (key === '' || key.endsWith('/')) {
      let token: string | undefined;
      do {
        const page = await awsCall('s3:ListBucket', () => client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, ContinuationToken: token })));
        for (const o of page.Contents ?? []) if (o.Key?.endsWith('.json')) keys.push(o.Key);
        if (keys.length > MAX_S3_OBJECTS) {
          throw new VolbenchError('EINVALID_ARGS', `${url} holds more than ${MAX_S3_OBJECTS} .json objects; name a narrower prefix`, {
            field: url, accepted: `a prefix with at most ${MAX_S3_OBJECTS} results`,
          });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      if (keys.length === 0) throw new VolbenchError('EINVALID_ARGS', `${url} holds no .json objects`, { field: url, accepted: 'a prefix with result files' });
      keys.sort();
    } else {
      keys.push(key);
    }
    const inputs: ReportInput[] = [];
    for (const k of keys) {
      const source = `s3://${bucket}/${k}`;
      let text: string;
      try {
        const obj = await awsCall('s3:GetObject', () => client.send(new GetObjectCommand({ Bucket: bucket, Key: k })));
        if ((obj.ContentLength ?? 0) > MAX_RESULT_BYTES) {
          obj.Body?.transformToWebStream().cancel().catch(() => {});
          throw new VolbenchError('EINVALID_ARGS', `${source} is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB`, { field: source });
        }
        text = (await obj.Body?.transformToString('utf-8')) ?? '';
      } catch (err) {
        const cause = (err as { cause?: { name?: string } }).cause;
        if (cause?.name === 'NoSuchKey') {
          throw new VolbenchError('EINVALID_ARGS', `${source} does not exist`, { field: source, accepted: 'an existing object, or a prefix ending in /' });
        }
        throw err;
      }
      inputs.push(parseReportInput(text, source));
    }
    return inputs;
  } finally {
    client.destroy();
  }
}
