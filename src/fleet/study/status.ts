/**
 * Where a study is, read and never driven (`fleet status`, `GET /v1/studies/{id}`): its step
 * and state from S3 (verified), who holds its lease until when, and each member as its state
 * records it with, while it runs, its progress read fresh from its prefix (schema-checked: a
 * refused object is shown as refused, and changes nothing).
 */
import type { MemberDone, MemberProgress, StudyLease } from '../../api/study-objects.js';
import type { FleetState, StudyStep } from '../state.js';
import { loadStudy } from './advance.js';
import type { StudyContext } from './context.js';
import { currentLease } from './lease.js';
import { readProgress } from './member-objects.js';
import { settled, studyOf } from './steps.js';

export interface MemberStatus {
  label: string;
  stack: FleetState['members'][number]['status'];
  instanceId?: string;
  volumeId?: string;
  progress?: MemberProgress;
  done?: MemberDone;
  /** Why it failed (its stack, a refused object, its instance ended, the expiry). */
  error?: string;
  collected?: string;
  /** Its progress object could not be read as a member writes it: why. */
  refused?: string;
}

export interface StudyStatus {
  fleetId: string;
  region: string;
  step: StudyStep;
  failure?: string;
  expiresAt?: string;
  updatedAt: string;
  /** Held and not expired: who drives it, until when. */
  lease?: Pick<StudyLease, 'holder' | 'expires_at'>;
  members: MemberStatus[];
}

export async function studyStatus(fleetId: string, ctx: Pick<StudyContext, 'clients' | 'bucket'>): Promise<StudyStatus> {
  const state = await loadStudy(fleetId, ctx);
  const study = studyOf(state);
  const lease = await currentLease(ctx.clients, ctx.bucket, fleetId);
  const live = lease && Date.parse(lease.expires_at) > Date.now() ? { holder: lease.holder, expires_at: lease.expires_at } : undefined;
  const members = await Promise.all(state.members.map(async (m): Promise<MemberStatus> => {
    const out: MemberStatus = {
      label: m.label, stack: m.status, ...(m.instanceId ? { instanceId: m.instanceId } : {}), ...(m.volumeId ? { volumeId: m.volumeId } : {}),
      ...(m.progress ? { progress: m.progress } : {}), ...(m.done ? { done: m.done } : {}), ...(m.error ?? m.reason ? { error: m.error ?? m.reason } : {}),
      ...(m.collected ? { collected: `s3://${ctx.bucket}/${m.collected.key}` } : {}),
    };
    if (study.step !== 'running' || settled(m)) return out;
    try {
      const progress = await readProgress({ clients: ctx.clients, bucket: ctx.bucket, fleetId, label: m.label });
      if (progress) out.progress = progress;
    } catch (err) {
      out.refused = (err as Error).message;
    }
    return out;
  }));
  return {
    fleetId, region: state.region, step: study.step, ...(study.failure ? { failure: study.failure } : {}), ...(state.expiresAt ? { expiresAt: state.expiresAt } : {}),
    updatedAt: study.updatedAt, ...(live ? { lease: live } : {}), members,
  };
}
