/**
 * The Lambda form's index of studies (study-index.ts): it has no store, so each study it started
 * is one small object in the service's bucket, `volbench-studies/<id>.json`, outside every
 * fleet's prefix (which reap and down own). A scheduled call lists the prefix to find the open
 * ones. Whoever may write the bucket may write one: each is read capped, parsed strictly, its key
 * the id it names; the study it points at is then read through the state's verifier like any.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { z } from 'zod';

import { awsCall, FLEET_ID, type FleetClients, type StudyStep } from '../../fleet/index.js';
import { putText, readCapped } from '../../fleet/study/bucket-objects.js';
import { STUDY_STEPS } from '../../api/study.js';
import { ENDED, type StudyIndex, type StudyIndexEntry } from './study-index.js';

export const INDEX_PREFIX = 'volbench-studies/';
const MAX_ENTRY_BYTES = 8 * 1024;
/** At most this many studies are listed (the newest): older ones stay in the bucket. */
const MAX_LISTED = 1000;

const entrySchema = z.strictObject({
  id: z.string().regex(FLEET_ID), bucket: z.string().max(63), region: z.string().max(32), instanceType: z.string().max(64),
  volumes: z.array(z.string().max(200)).max(64), estimatedUsd: z.number().nonnegative().optional(), step: z.enum(STUDY_STEPS),
  createdAt: z.string().max(40), updatedAt: z.string().max(40),
});

const keyOf = (id: string) => `${INDEX_PREFIX}${id}.json`;

export class BucketStudyIndex implements StudyIndex {
  /** `clientsOf()`: the service's clients of the bucket's region, made when first needed. */
  constructor(private readonly clientsOf: () => FleetClients, private readonly bucket: string, private readonly log: (line: string) => void = () => {}) {}

  private get clients(): FleetClients {
    return this.clientsOf();
  }

  async add(e: StudyIndexEntry): Promise<void> {
    await putText(this.clients, this.bucket, keyOf(e.id), JSON.stringify(e), { ifNoneMatch: '*' });
  }

  async setStep(id: string, step: StudyStep, updatedAt: string): Promise<void> {
    const e = await this.get(id);
    if (!e || (e.step === step && e.updatedAt === updatedAt)) return;
    await putText(this.clients, this.bucket, keyOf(id), JSON.stringify({ ...e, step, updatedAt }));
  }

  async get(id: string): Promise<StudyIndexEntry | undefined> {
    if (!FLEET_ID.test(id)) return undefined;
    let got;
    try {
      got = await readCapped(this.clients, this.bucket, keyOf(id), MAX_ENTRY_BYTES);
    } catch (err) {
      this.log(`s3://${this.bucket}/${keyOf(id)}: ${(err as Error).message}; left out`);
      return undefined;
    }
    if (!got) return undefined;
    try {
      const parsed = entrySchema.parse(JSON.parse(got.body.toString('utf8')));
      return parsed.id === id ? parsed : undefined;
    } catch {
      this.log(`s3://${this.bucket}/${keyOf(id)} is not an entry volbench wrote; left out`);
      return undefined;
    }
  }

  private async all(): Promise<StudyIndexEntry[]> {
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const page = await awsCall('s3:ListBucket', () => this.clients.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: INDEX_PREFIX, ContinuationToken: token })));
      for (const o of page.Contents ?? []) {
        const id = /^volbench-studies\/(vb[0-9a-f]{10})\.json$/.exec(o.Key ?? '')?.[1];
        if (id) ids.push(id);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token && ids.length < MAX_LISTED);
    const entries = await Promise.all(ids.map((id) => this.get(id)));
    return entries.filter((e): e is StudyIndexEntry => e !== undefined).sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  }

  async list(limit: number, cursor?: string): Promise<{ entries: StudyIndexEntry[]; next?: string }> {
    const all = await this.all();
    const from = cursor === undefined ? 0 : all.findIndex((e) => e.id === cursor) + 1;
    const entries = all.slice(from, from + limit);
    return { entries, ...(from + limit < all.length ? { next: entries.at(-1)!.id } : {}) };
  }

  async open(): Promise<StudyIndexEntry[]> {
    return (await this.all()).filter((e) => !ENDED.has(e.step)).reverse();
  }
}
