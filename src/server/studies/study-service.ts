/**
 * Studies in the service: `/v1/studies` on the library's study machine, the code `fleet compare`
 * runs. A study is admitted (study-admission.ts), checked and placed (prepareStudy: preflight;
 * nothing made on a refusal), started under its lease (state, spec, bundle in S3), put in the
 * index, and driven: by the service's own loop (study-driver.ts), or by a schedule's calls
 * (`tick()`, the Lambda form: every open study advanced by what is due, its lease taken and
 * released within the call). Reads go to S3 each time: the index says only which studies are this
 * service's. The AWS clients are made from the service's own credentials (the SDK's chain).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import { VolbenchError } from '../../errors.js';
import {
  advanceStudy, bundleArch, bundleOf, cancelStudy, fleetClients, HeldLease, instanceArchitecture, isTerminal, prepareStudy, startStudy, studyStatus,
  type Bundle, type FleetClients, type FleetEvent, type FleetPlan, type FleetState, type StudyContext,
} from '../../fleet/index.js';
import { readBundle } from '../../fleet/index.js';
import { readCapped } from '../../fleet/study/bucket-objects.js';
import type { StudyBody, StudyRequest, StudySummary } from '../../api/study.js';
import { noStudyPackage, studyNotFound, tooManyStudies } from '../problems/service-problems.js';
import { admitStudy, inBodyWords } from './study-admission.js';
import type { StudyConfig } from './study-config.js';
import { StudyDriver } from './study-driver.js';
import { StudyEvents } from './study-events.js';
import { ENDED, type StudyIndex, type StudyIndexEntry } from './study-index.js';
import { studyReportInputs, type StudyReportInputs } from './study-report.js';
import { studyBody, studySummary } from './study-view.js';

/** The largest bundle the Lambda form reads from its bucket. */
const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;

export interface StudyServiceOptions {
  config: StudyConfig;
  index: StudyIndex;
  /** This service's own id (its data directory's): what its leases' holder says. */
  serviceId: string;
  log: (line: string) => void;
}

/** What one scheduled call did: each open study's step before and after, or why it was left. */
export interface TickOutcome {
  advanced: Array<{ id: string; from: string; to: string }>;
  skipped: Array<{ id: string; why: string }>;
}

export class StudyService {
  readonly events = new StudyEvents();
  readonly holder: string;
  private readonly clients = new Map<string, FleetClients>();
  private readonly contexts = new Map<string, StudyContext>();
  private readonly driver: StudyDriver | undefined;

  constructor(private readonly o: StudyServiceOptions) {
    this.holder = `volbench serve ${o.serviceId} on ${hostname()} pid ${process.pid}`;
    const { config } = o;
    this.driver = config.driver === 'loop'
      ? new StudyDriver({
        index: o.index, contextOf: (e) => this.contextOf(e), holder: this.holder, mine: (h) => this.mine(h), log: o.log,
        pollMs: config.pollMs ?? 5000, runningPollMs: config.runningPollMs ?? 10_000, leaseSec: config.leaseSec ?? 60,
      })
      : undefined;
  }

  get config(): StudyConfig {
    return this.o.config;
  }

  /** A lease this service took in an earlier life (same data directory: that process is gone). */
  private mine(holder: string): boolean {
    return holder.startsWith(`volbench serve ${this.o.serviceId} `);
  }

  clientsFor(region: string): FleetClients {
    let c = this.clients.get(region);
    if (!c) this.clients.set(region, (c = fleetClients({ region })));
    return c;
  }

  /** One per study while this process lives: what it said already (`seen`) is not said again. */
  private contextOf(e: Pick<StudyIndexEntry, 'id' | 'region' | 'bucket'>): StudyContext {
    let ctx = this.contexts.get(e.id);
    if (!ctx) this.contexts.set(e.id, (ctx = { clients: this.clientsFor(e.region), bucket: e.bucket, onEvent: (ev: FleetEvent) => this.events.push(e.id, ev) }));
    return ctx;
  }

  /** Takes on every open study of the index (the loop form; after a restart, those it was driving). */
  async resume(): Promise<number> {
    return this.driver ? this.driver.resume() : 0;
  }

  private async bundleFor(plan: FleetPlan, bucket: string): Promise<Bundle> {
    const arch = bundleArch(instanceArchitecture(plan.instanceType));
    const { files, keys } = this.o.config.packages;
    const file = files?.[arch];
    if (file) return readBundle(file, instanceArchitecture(plan.instanceType));
    const key = keys?.[arch];
    if (!key) throw noStudyPackage(arch, plan.instanceType);
    const got = await readCapped(this.clientsFor(plan.region), bucket, key, MAX_BUNDLE_BYTES);
    if (!got) throw noStudyPackage(arch, plan.instanceType);
    return bundleOf(key.split('/').pop()!, got.body);
  }

  /** Starts a study; its id and plan. Refused (nothing made) on a bad value, a limit, or preflight. */
  async create(body: StudyRequest): Promise<{ id: string; plan: FleetPlan }> {
    const admitted = admitStudy(body, this.o.config);
    const open = (await this.o.index.open()).length;
    if (open >= this.o.config.maxConcurrent) throw tooManyStudies(open, this.o.config.maxConcurrent, admitted.plan.estimatedUsd);
    const { plan, bucket } = admitted;
    const id = plan.fleetId;
    const ctx = this.contextOf({ id, region: plan.region, bucket });
    const bundle = await this.bundleFor(plan, bucket);
    // Preflight's refusals (EPREFLIGHT: the bucket, the type not offered) name the body's fields.
    const prepared = await prepareStudy({ plan, workload: admitted.workload, bundle, ...(admitted.ttlSec ? { ttlSec: admitted.ttlSec } : {}),
      ...(admitted.tags ? { tags: admitted.tags } : {}) }, ctx).catch((err: unknown) => {
      throw inBodyWords(err);
    });
    const lease = await HeldLease.take({ clients: ctx.clients, bucket, fleetId: id, holder: this.holder, leaseSec: this.o.config.leaseSec });
    const now = new Date().toISOString();
    const entry: StudyIndexEntry = {
      id, bucket, region: plan.region, instanceType: plan.instanceType, volumes: admitted.volumes,
      ...(plan.estimatedUsd !== undefined ? { estimatedUsd: plan.estimatedUsd } : {}), step: 'planned', createdAt: now, updatedAt: now,
    };
    try {
      await startStudy(prepared, ctx);
    } catch (err) {
      // What it put up is taken down by the machine: a study left planned without its settings
      // fails, and its teardown runs (the driver's next calls, or the schedule's).
      this.o.log(`study ${id}: its start failed (${(err as Error).message}); its machine takes down what was made`);
      await this.o.index.add(entry).catch(() => {});
      this.handOver(entry, lease);
      throw err;
    }
    await this.o.index.add(entry);
    this.handOver(entry, lease);
    return { id, plan };
  }

  /** The loop drives it under the lease taken; a schedule's form lets the lease go for the next call. */
  private handOver(entry: StudyIndexEntry, lease: HeldLease): void {
    if (this.driver) this.driver.adopt(entry, lease);
    else void lease.release().catch(() => {});
  }

  async entry(id: string): Promise<StudyIndexEntry> {
    const e = await this.o.index.get(id);
    if (!e) throw studyNotFound(id);
    return e;
  }

  async view(id: string): Promise<StudyBody> {
    const e = await this.entry(id);
    const status = await studyStatus(id, this.contextOf(e));
    if (status.step !== e.step) await this.o.index.setStep(id, status.step, status.updatedAt).catch(() => {});
    return studyBody(status, e);
  }

  async list(limit: number, cursor?: string): Promise<{ studies: StudySummary[]; next_cursor?: string }> {
    const { entries, next } = await this.o.index.list(limit, cursor);
    return { studies: entries.map(studySummary), ...(next ? { next_cursor: next } : {}) };
  }

  /**
   * Cancels a study: its members not yet done are cancelled, and it goes to its teardown (which
   * the driver's next calls take). Under its lease: by the loop that holds it, else taken for the
   * moment (ESTUDY_LEASED, 409, when another driver holds it).
   */
  async cancel(id: string, reason = 'cancelled (DELETE /v1/studies)'): Promise<StudyBody> {
    const e = await this.entry(id);
    if (!ENDED.has(e.step)) {
      if (this.driver?.holds(id)) await this.driver.cancel(id, reason);
      else await this.leased(e, async (ctx) => {
        await cancelStudy(id, ctx, reason);
      }, 10_000);
    }
    return this.view(id);
  }

  /** Runs `fn` under the study's lease, waited for at most `waitMs` (none: not at all); released after. */
  private async leased<T>(e: StudyIndexEntry, fn: (ctx: StudyContext) => Promise<T>, waitMs = 0): Promise<T> {
    const ctx = this.contextOf(e);
    const lease = await HeldLease.take({
      clients: ctx.clients, bucket: e.bucket, fleetId: e.id, holder: this.holder, leaseSec: this.o.config.leaseSec, mine: (h) => this.mine(h),
      ...(waitMs ? { wait: true, signal: AbortSignal.timeout(waitMs) } : {}),
    }).catch((err: unknown) => {
      // A wait cut short is the other driver's lease still held: said as ESTUDY_LEASED.
      if (err instanceof VolbenchError && err.code === 'ECANCELLED') throw new VolbenchError('ESTUDY_LEASED', err.message.replace(/^interrupted while waiting for/, 'another driver still holds'));
      throw err;
    });
    try {
      return await fn(ctx);
    } finally {
      await lease.release().catch(() => {});
    }
  }

  /**
   * One scheduled call (the Lambda form, once a minute): every open study advanced by the steps
   * that are due, each under its lease for the call (a study another driver holds is left), none
   * waited on.
   */
  async tick(): Promise<TickOutcome> {
    const out: TickOutcome = { advanced: [], skipped: [] };
    for (const e of await this.o.index.open()) {
      if (!this.o.config.regions.includes(e.region)) {
        out.skipped.push({ id: e.id, why: `region ${e.region} is not allowed` });
        continue;
      }
      try {
        const state: FleetState = await this.leased(e, async (ctx) => (await advanceStudy(e.id, ctx)).state);
        const step = state.study!.step;
        await this.o.index.setStep(e.id, step, state.study!.updatedAt);
        out.advanced.push({ id: e.id, from: e.step, to: step });
      } catch (err) {
        out.skipped.push({ id: e.id, why: (err as Error).message });
        this.o.log(`study ${e.id}: ${(err as Error).message}`);
      }
    }
    return out;
  }

  /** What the report of a study is drawn from: its collected results (the bytes it saved), so far. */
  async reportInputs(id: string): Promise<StudyReportInputs> {
    const e = await this.entry(id);
    return studyReportInputs(id, this.contextOf(e));
  }

  isTerminal(step: string): boolean {
    return isTerminal(step as never);
  }

  async close(): Promise<void> {
    await this.driver?.close();
    for (const c of this.clients.values()) c.destroy();
    this.clients.clear();
  }
}

/** A new service id: what a data directory's service is known by in its leases. */
export function newServiceId(): string {
  return randomBytes(6).toString('hex');
}
