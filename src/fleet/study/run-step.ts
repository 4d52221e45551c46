/**
 * `running`: each member runs its workload on its own and says how it goes under its prefix. One
 * look per call: its done.json (then `member-done`), else its progress.json (a `progress` event
 * when it moved). A member is settled once it is done, or failed: what it wrote was refused, its
 * instance ended without a done.json, or the fleet's expiry passed. Once all are settled, the
 * study collects.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';

import { VolbenchError } from '../../errors.js';
import { awsCall } from '../aws.js';
import { FLEET_TAG } from '../names.js';
import type { FleetMemberState, FleetState } from '../state.js';
import { nowOf, seenOf, type StudyContext } from './context.js';
import { progressLine, readDone, readProgress } from './member-objects.js';
import { moveTo, settled } from './steps.js';

function failMember(state: FleetState, m: FleetMemberState, reason: string, ctx: StudyContext): void {
  m.error = reason;
  ctx.onEvent?.({ event: 'member-failed', fleetId: state.fleetId, label: m.label, reason });
}

/** One look at a member's objects; a refusal fails the member (naming it), never the study. */
async function look(state: FleetState, m: FleetMemberState, ctx: StudyContext): Promise<void> {
  const where = { clients: ctx.clients, bucket: state.bucket!, fleetId: state.fleetId, label: m.label };
  try {
    const done = await readDone(where);
    if (done) {
      m.done = done;
      ctx.onEvent?.({ event: 'member-done', fleetId: state.fleetId, label: m.label, status: done.status, finishedAt: done.finished_at,
        ...(done.reason ? { reason: done.reason } : {}), ...(done.exit_code !== undefined ? { exitCode: done.exit_code } : {}) });
      return;
    }
    const progress = await readProgress(where);
    if (!progress) return;
    m.progress = progress;
    const seen = seenOf(ctx).progress;
    if (seen.get(m.label) === progress.at) return;
    seen.set(m.label, progress.at);
    ctx.onEvent?.({ event: 'progress', fleetId: state.fleetId, label: m.label, line: progressLine(progress), progress });
  } catch (err) {
    if (!(err instanceof VolbenchError) || err.code !== 'EFLEET_STATE') throw err;
    failMember(state, m, err.message, ctx);
  }
}

const ENDED = new Set(['shutting-down', 'terminated', 'stopping', 'stopped']);

/** Members whose instance has ended (the fleet's tag on it: an id the state names is only looked at), by label. */
async function ended(state: FleetState, members: FleetMemberState[], ctx: StudyContext): Promise<Map<string, string>> {
  const ids = members.flatMap((m) => (m.instanceId ? [m.instanceId] : []));
  const out = new Map<string, string>();
  if (!ids.length) return out;
  const found = await awsCall('ec2:DescribeInstances', () => ctx.clients.ec2.send(new DescribeInstancesCommand({
    Filters: [{ Name: 'instance-id', Values: ids }, { Name: `tag:${FLEET_TAG}`, Values: [state.fleetId] }],
  })));
  const byId = new Map((found.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => [i.InstanceId, i.State?.Name ?? '']));
  for (const m of members) {
    const s = m.instanceId ? byId.get(m.instanceId) : undefined;
    if (s !== undefined && ENDED.has(s)) out.set(m.label, `its instance ${m.instanceId} is ${s}`);
  }
  return out;
}

export async function runningStep(state: FleetState, ctx: StudyContext): Promise<void> {
  const open = () => state.members.filter((m) => !settled(m));
  await Promise.all(open().map((m) => look(state, m, ctx)));
  // A member whose instance ended without done.json never will write one (looked at once more:
  // it may have written it just before it shut down).
  const gone = await ended(state, open(), ctx);
  for (const m of open().filter((x) => gone.has(x.label))) {
    await look(state, m, ctx);
    if (!settled(m)) failMember(state, m, `${gone.get(m.label)} and wrote no done.json`, ctx);
  }
  const now = nowOf(ctx);
  if (Date.parse(state.expiresAt!) <= now.getTime()) {
    for (const m of open()) failMember(state, m, `the fleet expired at ${state.expiresAt} before it was done`, ctx);
  }
  if (open().length === 0) moveTo(state, 'collecting', ctx.onEvent, undefined, now);
}
