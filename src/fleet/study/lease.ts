/**
 * The lease that keeps two drivers off one study: `FLEET/study/lease.json` (the contract's
 * studyLeaseSchema), written only with S3 conditional writes. A driver takes a missing lease
 * with `If-None-Match: *`, and an expired one (or its own) with `If-Match: <the ETag it read>`;
 * it renews it the same way while it drives, and releases it by writing it expired. Whoever
 * loses a race gets 412 (PreconditionFailed) or 409 (ConditionalRequestConflict) and reads again.
 * A lease held by another driver, not expired, is refused (ESTUDY_LEASED, naming the holder and
 * the expiry), or waited for.
 *
 * A lease that is not what volbench writes (it fails the schema, is larger than its cap, or
 * expires further ahead than any driver's lease lasts) is taken over as an expired one would
 * be, and said so: whoever may write the bucket could as well have written a valid one, but not
 * one that holds the study for good.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

import { STUDY_OBJECT_MAX_BYTES, studyLeaseSchema, studyObjectKey, type StudyLease } from '../../api/study-objects.js';
import { VolbenchError } from '../../errors.js';
import type { FleetClients } from '../aws.js';
import { putRefusal, putText, readCapped, TooLarge } from './bucket-objects.js';

/** How long a lease lasts unless renewed: a driver that dies holds the study this long at most. */
export const DEFAULT_LEASE_SEC = 60;

/**
 * The longest lease a driver writes. One whose expiry is further ahead than this, plus
 * MAX_CLOCK_SKEW_SEC for a driver whose clock runs ahead, was written by no driver: it is taken
 * over as malformed, never waited for.
 */
export const MAX_LEASE_SEC = 600;
const MAX_CLOCK_SKEW_SEC = 300;

export interface LeaseOptions {
  clients: FleetClients;
  bucket: string;
  fleetId: string;
  /** Who drives, for another driver's refusal (default: host, pid). */
  holder?: string;
  leaseSec?: number;
  /** Wait for a lease another driver holds, until it is released or expires (default: refuse). */
  wait?: boolean;
  /** Stops a wait. */
  signal?: AbortSignal;
  /** A line while it waits. */
  log?: (line: string) => void;
  now?: () => Date;
  /**
   * A holder that is this driver in an earlier life, whose lease is taken at once: a service whose
   * data directory's lock proves its previous process gone (kill -9, then a restart).
   */
  mine?: (holder: string) => boolean;
}

interface Seen {
  lease?: StudyLease;
  /** Not what volbench writes: taken over as expired. */
  malformed?: string;
  etag?: string;
}

const iso = (d: Date) => d.toISOString();

async function read(o: LeaseOptions): Promise<Seen | undefined> {
  const key = studyObjectKey(o.fleetId, 'lease');
  let got;
  try {
    got = await readCapped(o.clients, o.bucket, key, STUDY_OBJECT_MAX_BYTES.lease);
  } catch (err) {
    if (err instanceof TooLarge) return { malformed: err.message, etag: err.etag };
    throw err;
  }
  if (!got) return undefined;
  try {
    const parsed = studyLeaseSchema.safeParse(JSON.parse(got.body.toString('utf8')));
    const now = (o.now?.() ?? new Date()).getTime();
    if (parsed.success && Date.parse(parsed.data.expires_at) - now > (MAX_LEASE_SEC + MAX_CLOCK_SKEW_SEC) * 1000) {
      return { malformed: `expires_at: ${parsed.data.expires_at} is more than ${MAX_LEASE_SEC + MAX_CLOCK_SKEW_SEC} s ahead, longer than any driver holds one`, etag: got.etag };
    }
    if (parsed.success) return { lease: parsed.data, etag: got.etag };
    const issue = parsed.error.issues[0];
    return { malformed: `${issue.path.join('.') || '(the whole object)'}: ${issue.message}`, etag: got.etag };
  } catch (err) {
    return { malformed: `not JSON: ${(err as Error).message}`, etag: got.etag };
  }
}

/** A study's lease as it is now, for `fleet status`: undefined when there is none or it is not one volbench wrote. */
export async function currentLease(clients: FleetClients, bucket: string, fleetId: string): Promise<StudyLease | undefined> {
  return (await read({ clients, bucket, fleetId }))?.lease;
}

export function leasedError(fleetId: string, lease: StudyLease): VolbenchError {
  return new VolbenchError('ESTUDY_LEASED', `study ${fleetId} is driven by ${lease.holder} (its lease expires at ${lease.expires_at}); ` +
    'nothing was done: give --wait to take over once it is released or expires', { field: '--wait', accepted: `--wait, or after ${lease.expires_at}` });
}

/** A lease this process holds: renewed while it drives, released at the end. */
export class HeldLease {
  private constructor(private readonly o: LeaseOptions, private lease: StudyLease, private etag: string | undefined) {}

  get holder(): string {
    return this.lease.holder;
  }

  get expiresAt(): string {
    return this.lease.expires_at;
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  private get seconds(): number {
    return this.o.leaseSec ?? DEFAULT_LEASE_SEC;
  }

  /** Takes the study's lease, waiting for it with `wait`; ESTUDY_LEASED when another driver holds it. */
  static async take(o: LeaseOptions): Promise<HeldLease> {
    const seconds = o.leaseSec ?? DEFAULT_LEASE_SEC;
    if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_LEASE_SEC) {
      throw new VolbenchError('EINVALID_ARGS', `a study's lease lasts at most ${MAX_LEASE_SEC} s (asked: ${o.leaseSec})`, { field: 'leaseSec', accepted: `1 to ${MAX_LEASE_SEC}` });
    }
    const holder = o.holder ?? `${hostname()} pid ${process.pid}`;
    const token = randomUUID();
    const key = studyObjectKey(o.fleetId, 'lease');
    for (let tries = 0; ; tries++) {
      const now = o.now?.() ?? new Date();
      const seen = await read(o);
      const lease: StudyLease = { holder, token, acquired_at: iso(now), expires_at: iso(new Date(now.getTime() + (o.leaseSec ?? DEFAULT_LEASE_SEC) * 1000)) };
      const free = !seen || seen.malformed !== undefined || Date.parse(seen.lease!.expires_at) <= now.getTime() || (o.mine?.(seen.lease!.holder) ?? false);
      if (free) {
        if (seen?.malformed) o.log?.(`study ${o.fleetId}: its lease is not one volbench wrote (${seen.malformed}): taking it over`);
        try {
          // S3 gives every object an ETag; one missing fails the condition rather than writing blind.
          const etag = await putText(o.clients, o.bucket, key, JSON.stringify(lease), seen ? { ifMatch: seen.etag ?? '"none"' } : { ifNoneMatch: '*' });
          return new HeldLease(o, lease, etag);
        } catch (err) {
          // Another driver took it first, or was writing it: read again.
          if (!putRefusal(err) || tries > 20) throw err;
          await sleep(100 + Math.random() * 400);
          continue;
        }
      }
      const held = seen.lease!;
      if (!o.wait) throw leasedError(o.fleetId, held);
      if (tries === 0) o.log?.(`study ${o.fleetId} is driven by ${held.holder} until ${held.expires_at}: waiting for its lease`);
      const until = Math.min(Date.parse(held.expires_at) - now.getTime() + 250, 5000);
      try {
        await sleep(Math.max(250, until), undefined, { signal: o.signal });
      } catch {
        throw new VolbenchError('ECANCELLED', `interrupted while waiting for study ${o.fleetId}'s lease (held by ${held.holder}); nothing was done`);
      }
    }
  }

  private async write(expires: Date): Promise<void> {
    const next = { ...this.lease, expires_at: iso(expires) };
    try {
      this.etag = await putText(this.o.clients, this.o.bucket, studyObjectKey(this.o.fleetId, 'lease'), JSON.stringify(next), { ifMatch: this.etag ?? '"none"' });
      this.lease = next;
    } catch (err) {
      if (!putRefusal(err)) throw err;
      const now = await read(this.o);
      throw new VolbenchError('ESTUDY_LEASED', `study ${this.o.fleetId}: its lease was taken by ${now?.lease?.holder ?? 'another driver'} ` +
        `(it expired at ${this.lease.expires_at} before this driver renewed it); this driver stops`, { field: '--wait', accepted: 'one driver at a time' });
    }
  }

  /** Renews the lease once a third of it has passed; ESTUDY_LEASED when another driver took it meanwhile. */
  async renew(): Promise<void> {
    const left = Date.parse(this.lease.expires_at) - this.now().getTime();
    if (left > (this.seconds * 1000 * 2) / 3) return;
    await this.write(new Date(this.now().getTime() + this.seconds * 1000));
  }

  /** Gives the lease up (written expired), so another driver may take it at once; a lease lost meanwhile is left as it is. */
  async release(): Promise<void> {
    try {
      await this.write(this.now());
    } catch (err) {
      if (!(err instanceof VolbenchError && err.code === 'ESTUDY_LEASED')) throw err;
    }
  }
}
