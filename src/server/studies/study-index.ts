/**
 * The service's list of its studies: which it started, where each lives and where it was when
 * last seen. Only an index: a study's state is its fleet.json in S3, read (and verified) on
 * every look. The service keeps it in its SQLite store (store/studies.ts); the Lambda form, which
 * has no store, as one object per study in the bucket (bucket-index.ts).
 */
import type { StudyStep } from '../../fleet/index.js';

export interface StudyIndexEntry {
  id: string;
  bucket: string;
  region: string;
  instanceType: string;
  /** Each member's volume in the volume grammar. */
  volumes: string[];
  estimatedUsd?: number;
  step: StudyStep;
  /** ISO-8601. */
  createdAt: string;
  updatedAt: string;
}

export interface StudyIndex {
  add(entry: StudyIndexEntry): Promise<void>;
  /** The step the study was last seen at. */
  setStep(id: string, step: StudyStep, updatedAt: string): Promise<void>;
  get(id: string): Promise<StudyIndexEntry | undefined>;
  /** Newest first, `limit` of them after `cursor` (an id's creation, from the last page). */
  list(limit: number, cursor?: string): Promise<{ entries: StudyIndexEntry[]; next?: string }>;
  /** The studies not yet done or failed. */
  open(): Promise<StudyIndexEntry[]>;
}

export const ENDED: ReadonlySet<StudyStep> = new Set(['done', 'failed']);
