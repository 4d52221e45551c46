/**
 * What a driver gives the study's steps: AWS clients, the bucket the study lives in, where the
 * state and results also go locally (a CLI has both; the service and the Lambda form neither),
 * the clock, and where events go. A step keeps nothing between calls but what it writes to the
 * state: `seen` only saves a driver from saying twice what it said already.
 */
import type { FleetClients } from '../aws.js';
import type { OnFleetEvent } from '../events.js';

export interface StudyContext {
  clients: FleetClients;
  bucket: string;
  /** The local copy of the state (the CLI's --state-dir); none: S3 only. */
  stateDir?: string;
  /** Results beneath <outDir>/<fleet-id>/ too (the CLI's --out); none: in the bucket only. */
  outDir?: string;
  onEvent?: OnFleetEvent;
  /** The clock (tests move it past an expiry). */
  now?: () => Date;
  /** What this driver said already: each member's last progress (`at`), and the results it saved locally. */
  seen?: { progress: Map<string, string>; saved: Set<string> };
}

export function nowOf(ctx: StudyContext): Date {
  return ctx.now?.() ?? new Date();
}

export function seenOf(ctx: StudyContext): NonNullable<StudyContext['seen']> {
  ctx.seen ??= { progress: new Map(), saved: new Set() };
  return ctx.seen;
}
