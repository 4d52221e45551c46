/**
 * The studies this service started (studies/study-index.ts), in its SQLite store: a row each,
 * never a study's state (that is in S3), so that a restart finds every study it was driving.
 */
import type { StudyStep } from '../../fleet/index.js';
import type { StudyIndex, StudyIndexEntry } from '../studies/study-index.js';
import type { Db } from './database.js';

interface Row {
  id: string;
  bucket: string;
  region: string;
  instance_type: string;
  volumes: string;
  estimated_usd: number | null;
  step: string;
  created_at: number;
  updated_at: number;
}

const entryOf = (r: Row): StudyIndexEntry => ({
  id: r.id, bucket: r.bucket, region: r.region, instanceType: r.instance_type, volumes: JSON.parse(r.volumes) as string[],
  ...(r.estimated_usd === null ? {} : { estimatedUsd: r.estimated_usd }), step: r.step as StudyStep,
  createdAt: new Date(r.created_at).toISOString(), updatedAt: new Date(r.updated_at).toISOString(),
});

export class StoreStudyIndex implements StudyIndex {
  constructor(private readonly db: Db) {}

  async add(e: StudyIndexEntry): Promise<void> {
    this.db.prepare(`INSERT INTO studies (id, bucket, region, instance_type, volumes, estimated_usd, step, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(e.id, e.bucket, e.region, e.instanceType, JSON.stringify(e.volumes), e.estimatedUsd ?? null, e.step,
      Date.parse(e.createdAt), Date.parse(e.updatedAt));
  }

  async setStep(id: string, step: StudyStep, updatedAt: string): Promise<void> {
    this.db.prepare('UPDATE studies SET step = ?, updated_at = ? WHERE id = ?').run(step, Date.parse(updatedAt), id);
  }

  async get(id: string): Promise<StudyIndexEntry | undefined> {
    const row = this.db.prepare('SELECT * FROM studies WHERE id = ?').get(id) as Row | undefined;
    return row ? entryOf(row) : undefined;
  }

  async list(limit: number, cursor?: string): Promise<{ entries: StudyIndexEntry[]; next?: string }> {
    const after = cursor === undefined ? undefined : (this.db.prepare('SELECT seq FROM studies WHERE id = ?').pluck().get(cursor) as number | undefined);
    const rows = (after === undefined
      ? this.db.prepare('SELECT * FROM studies ORDER BY seq DESC LIMIT ?').all(limit + 1)
      : this.db.prepare('SELECT * FROM studies WHERE seq < ? ORDER BY seq DESC LIMIT ?').all(after, limit + 1)) as Row[];
    const entries = rows.slice(0, limit).map(entryOf);
    return { entries, ...(rows.length > limit ? { next: entries.at(-1)!.id } : {}) };
  }

  async open(): Promise<StudyIndexEntry[]> {
    return (this.db.prepare("SELECT * FROM studies WHERE step NOT IN ('done', 'failed') ORDER BY seq").all() as Row[]).map(entryOf);
  }

  /** This service's own id, made once per data directory: what its leases' holder carries. */
  serviceId(make: () => string): string {
    const have = this.db.prepare("SELECT value FROM service_meta WHERE key = 'service_id'").pluck().get() as string | undefined;
    if (have) return have;
    const id = make();
    this.db.prepare("INSERT INTO service_meta (key, value) VALUES ('service_id', ?)").run(id);
    return id;
  }
}
