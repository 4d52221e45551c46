/** A study as the API says it (src/api/study.ts), from the library's status and the index's entry. */
import type { StudyBody, StudySummary } from '../../api/study.js';
import type { StudyStatus } from '../../fleet/index.js';
import { API_PREFIX } from '../runs/run-view.js';
import type { StudyIndexEntry } from './study-index.js';

export function studyLinks(id: string) {
  const self = `${API_PREFIX}/studies/${id}`;
  return { self, events: `${self}/events`, report: `${self}/report` };
}

/** While members run: the slowest one's seconds left, and the share done on average (a settled member counts whole). */
function progressOf(status: StudyStatus): { eta_s?: number; percent?: number } {
  if (status.step !== 'running' && status.step !== 'creating') return status.step === 'planned' ? {} : { percent: 100 };
  const open = status.members.filter((m) => !m.done && !m.error);
  const etas = open.flatMap((m) => (m.progress?.eta_s !== undefined ? [m.progress.eta_s] : []));
  const shares = status.members.map((m) => (m.done || m.error ? 100 : (m.progress?.percent ?? 0)));
  return {
    ...(etas.length ? { eta_s: Math.max(...etas) } : {}),
    ...(status.step === 'running' ? { percent: Math.round((shares.reduce((a, b) => a + b, 0) / shares.length) * 10) / 10 } : {}),
  };
}

export function studyBody(status: StudyStatus, entry: StudyIndexEntry): StudyBody {
  return {
    id: status.fleetId,
    step: status.step,
    region: status.region,
    instance_type: entry.instanceType,
    bucket: entry.bucket,
    created_at: entry.createdAt,
    updated_at: status.updatedAt,
    ...(status.expiresAt ? { expires_at: status.expiresAt } : {}),
    ...(status.failure ? { failure: status.failure } : {}),
    ...(entry.estimatedUsd !== undefined ? { estimated_usd: entry.estimatedUsd } : {}),
    ...progressOf(status),
    ...(status.lease ? { lease: status.lease } : {}),
    members: status.members.map((m, i) => ({
      label: m.label,
      volume: entry.volumes[i] ?? m.label,
      stack: m.stack,
      ...(m.instanceId ? { instance_id: m.instanceId } : {}),
      ...(m.volumeId ? { volume_id: m.volumeId } : {}),
      ...(m.progress ? { progress: m.progress } : {}),
      ...(m.done ? { done: { status: m.done.status, finished_at: m.done.finished_at, ...(m.done.reason ? { reason: m.done.reason } : {}),
        ...(m.done.exit_code !== undefined ? { exit_code: m.done.exit_code } : {}) } } : {}),
      ...(m.error ? { error: m.error } : {}),
      ...(m.collected ? { collected: m.collected } : {}),
      ...(m.refused ? { refused: m.refused } : {}),
    })),
    links: studyLinks(status.fleetId),
  };
}

export function studySummary(e: StudyIndexEntry): StudySummary {
  return {
    id: e.id, step: e.step, region: e.region, instance_type: e.instanceType, bucket: e.bucket, volumes: e.volumes,
    ...(e.estimatedUsd !== undefined ? { estimated_usd: e.estimatedUsd } : {}), created_at: e.createdAt, updated_at: e.updatedAt, links: studyLinks(e.id),
  };
}
