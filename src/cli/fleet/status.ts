/**
 * `volbench fleet status FLEET_ID --bucket B`: where a study is, from its state in S3, never
 * driving it: its step, who drives it (the lease's holder, until when), and each member, with
 * its progress read fresh from its prefix while it runs.
 */
import { checkFleetId, progressLine, studyStatus, type MemberStatus, type StudyStatus } from '../../fleet/index.js';
import { inertLines } from '../../inert-text.js';
import type { FleetSubcommand } from './context.js';
import { need } from './flags.js';
import { print } from './print.js';
import { studyClients } from './study-found.js';

function memberLine(m: MemberStatus): string {
  const what = m.collected ? `collected (${m.collected})` : m.done ? `done: ${m.done.status}${m.done.reason ? ` (${m.done.reason})` : ''}`
    : m.error ? `failed: ${m.error}` : m.refused ? `refused: ${m.refused}` : m.progress ? progressLine(m.progress) : `stack ${m.stack}`;
  return `  ${m.label}: ${what}`;
}

/** The status for a person: it quotes what the members and the lease's holder wrote, so each line is inert. */
function text(s: StudyStatus): string {
  const lines = [`study ${s.fleetId} in ${s.region}: ${s.step} since ${s.updatedAt}${s.failure ? ` (${s.failure})` : ''}${s.expiresAt ? `, expires ${s.expiresAt}` : ''}`];
  lines.push(s.lease ? `driven by ${s.lease.holder} (lease until ${s.lease.expires_at})` : 'no driver holds it: volbench fleet attach takes it on');
  lines.push(...s.members.map(memberLine));
  return inertLines(lines);
}

export const status: FleetSubcommand = {
  flags: ['bucket'],
  async run(ctx) {
    const fleetId = checkFleetId(ctx.positionals[0] ?? '');
    const bucket = need(ctx.values, 'bucket', 'the bucket the study lives in');
    const clients = await studyClients(ctx, fleetId, bucket);
    try {
      const s = await studyStatus(fleetId, { clients, bucket });
      print(ctx.io, ctx.values, s, text(s));
      return 0;
    } finally {
      clients.destroy();
    }
  },
};
