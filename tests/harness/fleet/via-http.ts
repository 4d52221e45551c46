/**
 * The rehearsal's --via-http: the study run as a pipeline runs it against a volbench service.
 * A real `volbench serve --studies` is the control plane (service-run.ts); the study is started
 * with one `POST /v1/studies` and followed with `GET /v1/studies/{id}` and its events (SSE). Once
 * every member runs, the service is killed with SIGKILL and started again on its data directory,
 * and resumes the study on its own. The report is `GET /v1/studies/{id}/report` (json, md, html),
 * and each collected result is fetched from the bucket, where the service's collector put it.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';

import type { Cleanup } from './cleanup.js';
import { StudyServiceProcess } from './service-run.js';
import type { ServiceRecord } from './study.js';

/** The study as `GET /v1/studies/{id}` answers it (the fields the rehearsal reads). */
interface StudyView {
  step: string;
  failure?: string;
  percent?: number;
  eta_s?: number;
  lease?: { holder: string };
  members: Array<{ label: string; collected?: string; error?: string }>;
}

export interface ViaHttpOptions {
  out: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  cleanup: Cleanup;
  /** The POST's body. */
  body: Record<string, unknown>;
  /** --studies and the operator's limits. */
  studyFlags: string[];
  /** moto itself, for the results' bytes. */
  direct: { region: string; endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** Plays the study's members as their stacks appear; `allRunning` once every one runs. */
  play: (studyId: string, allRunning: () => void) => void;
  /** How long the study may take from the POST. */
  deadlineMs: number;
}

export interface ViaHttpOutcome {
  studyId?: string;
  service: ServiceRecord;
  /** The last GET's answer. */
  final?: StudyView;
  /** The report's files, written to `out`. */
  reportFiles: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const over = (step: string | undefined) => step === 'done' || step === 'failed';

/** Reads one connection of the study's event stream; each event to `onEvent`; ends with the stream. */
async function readStream(res: Response, onEvent: (event: string, data: any) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body!) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (data) onEvent(event, JSON.parse(data));
    }
  }
}

/**
 * Follows the events as a client does: connected again whenever the stream breaks (the service
 * killed) until the study has ended. Each event goes to DIR/events.jsonl.
 */
async function followEvents(service: StudyServiceProcess, id: string, file: string, record: ServiceRecord, log: (line: string) => void, ended: () => boolean,
  onEvent: (event: string, connection: number) => void): Promise<void> {
  let connections = 0;
  while (!ended()) {
    let done = false;
    try {
      const res = await fetch(`${service.url}/v1/studies/${id}/events`, { headers: { authorization: `Bearer ${service.studyToken}` } });
      if (res.ok && res.body) {
        connections += 1;
        if (connections > 1) log(`events: connected again (connection ${connections})`);
        await readStream(res, (event, data) => {
          record.requests.events += 1;
          appendFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), event, data })}\n`);
          if (event === 'study' && over(data.step)) done = true;
          onEvent(event, connections);
          if (event === 'step' || event === 'member-done' || event === 'collected' || event === 'member-failed') log(`event ${event}: ${data.step ?? data.label ?? ''}`);
        });
      }
    } catch {
      // The service went (SIGKILL): the stream broke; asked again once it answers.
    }
    if (done) break;
    await sleep(500);
  }
  record.requests.event_connections = connections;
}

/** Each collected result's bytes, from the bucket the service collected it to, as `out/results/ID/LABEL.json`. */
async function fetchResults(view: StudyView, id: string, o: ViaHttpOptions): Promise<void> {
  const s3 = new S3Client({ ...o.direct, forcePathStyle: true });
  const dir = join(o.out, 'results', id);
  mkdirSync(dir, { recursive: true });
  try {
    for (const m of view.members) {
      const where = /^s3:\/\/([^/]+)\/(.+)$/.exec(m.collected ?? '');
      if (!where) continue;
      const got = await s3.send(new GetObjectCommand({ Bucket: where[1], Key: where[2] }));
      writeFileSync(join(dir, `${m.label}.json`), await got.Body!.transformToByteArray());
    }
  } finally {
    s3.destroy();
  }
}

/**
 * What the operator's limits refuse, asked first as a pipeline might: the study in a region the
 * service does not allow (403, naming the region), and the study at half an hour a test, over
 * the cost cap (422, with its estimate). Nothing is made by either.
 */
async function refusals(service: StudyServiceProcess, o: ViaHttpOptions, record: ServiceRecord): Promise<NonNullable<ServiceRecord['refusals']>> {
  const asks = [
    { why: 'a region not allowed', body: { ...o.body, region: 'eu-west-1' } },
    // Half an hour a test: every member's instance for hours, the estimate well past a cap of 1.5 times the study's.
    { why: 'over the cost cap', body: { ...o.body, runtime: '30m' } },
  ];
  const out: NonNullable<ServiceRecord['refusals']> = [];
  for (const ask of asks) {
    record.requests.post += 1;
    const got = await service.request('POST', '/v1/studies', ask.body);
    const p = got.body as { type?: string; detail?: string; limit?: string; field?: string; estimated_usd?: number };
    out.push({ why: ask.why, status: got.status, type: p.type, limit: p.limit, field: p.field, estimated_usd: p.estimated_usd, detail: p.detail });
    o.log(`POST /v1/studies, ${ask.why}: ${got.status} ${p.detail ?? got.text.slice(0, 200)}`);
  }
  return out;
}

/** GET /v1/studies/{id}/report in each format, saved as `out/report.FORMAT`; the files saved. */
async function saveReport(service: StudyServiceProcess, id: string, record: ServiceRecord, o: ViaHttpOptions): Promise<string[]> {
  const files: string[] = [];
  for (const format of ['json', 'md', 'html'] as const) {
    const got = await service.request('GET', `/v1/studies/${id}/report?format=${format}`);
    record.requests.get += 1;
    if (got.status !== 200) {
      o.log(`GET /v1/studies/${id}/report?format=${format}: ${got.status} ${got.text.slice(0, 300)}`);
      continue;
    }
    writeFileSync(join(o.out, `report.${format}`), format === 'json' ? `${JSON.stringify(got.body, null, 2)}\n` : got.text);
    files.push(`report.${format}`);
  }
  return files;
}

/** The study through the service: started, followed, the service killed and restarted mid-study, the report saved. */
export async function runViaHttp(o: ViaHttpOptions): Promise<ViaHttpOutcome> {
  const { log } = o;
  const since = (t: number) => Math.round((Date.now() - t) / 100) / 10;
  const service = new StudyServiceProcess({ dir: join(o.out, 'service'), env: o.env, log, cleanup: o.cleanup, studyFlags: o.studyFlags });
  await service.start();
  const record: ServiceRecord = { url: service.url, command: service.command, killed: false, restarted: false, requests: { post: 0, get: 0, events: 0 } };
  const outcome: ViaHttpOutcome = { service: record, reportFiles: [] };
  log(`control plane: ${service.command} answering at ${service.url} (pid ${service.pid})`);

  record.refusals = await refusals(service, o, record);
  record.requests.post += 1;
  const created = await service.request('POST', '/v1/studies', o.body);
  writeFileSync(join(o.out, 'post.json'), `${JSON.stringify({ request: o.body, status: created.status, response: created.body }, null, 2)}\n`);
  if (created.status !== 202) throw new Error(`POST /v1/studies answered ${created.status}: ${created.text.slice(0, 800)}`);
  const id: string = created.body.id;
  const postedAt = Date.now();
  outcome.studyId = id;
  record.estimated_usd = created.body.plan?.estimatedUsd;
  log(`POST /v1/studies: 202, study ${id}, estimated $${record.estimated_usd}, Location ${created.body.links?.self}`);

  let view: StudyView | undefined;
  let killedAt: number | undefined;
  /** The lease's holder as last seen before the kill: the killed process. */
  let holderBefore: string | undefined;
  // Resumed: the restarted service's first act on the study (an event of its driver, or its lease seen), or the study's end.
  const resumed = (how: string) => {
    if (!record.restarted || record.resumed_s !== undefined) return;
    record.resumed_s = since(killedAt!);
    log(`the restarted service drives the study (${how}), ${record.resumed_s} s after the kill`);
  };
  let restarting: Promise<void> | undefined;
  // Once every member runs: SIGKILL, then a start on the same data directory; it resumes the study itself.
  const killAndRestart = async () => {
    killedAt = Date.now();
    record.killed_at_s = since(postedAt);
    log(`SIGKILL to the service (pid ${service.pid}) with every member running; it is started again on its data directory`);
    const gone = await service.kill();
    record.killed = gone.signal === 'SIGKILL';
    record.killed_exit = gone.signal ?? gone.code;
    await service.start();
    record.restarted = true;
    record.gap_s = since(killedAt);
    log(`the service answers again (pid ${service.pid}), ${record.gap_s} s after the kill`);
  };
  o.play(id, () => {
    restarting ??= killAndRestart().catch((err: Error) => {
      record.restart_error = err.message;
      log(`restarting the service failed: ${err.message}`);
    });
  });

  const eventsFile = join(o.out, 'events.jsonl');
  writeFileSync(eventsFile, '');
  const events = followEvents(service, id, eventsFile, record, log, () => over(view?.step), (event, connection) => {
    if (connection > 1 && event !== 'study') resumed(`its event ${event}`);
  });
  let said = '';
  while (!over(view?.step)) {
    if (Date.now() - postedAt > o.deadlineMs) throw new Error(`study ${id} not done within ${o.deadlineMs / 1000} s of the POST: ${JSON.stringify(view).slice(0, 600)}`);
    await sleep(2000);
    if (killedAt !== undefined && !record.restarted) continue;
    const got = await service.request('GET', `/v1/studies/${id}`).catch(() => undefined);
    if (!got || got.status !== 200) continue;
    record.requests.get += 1;
    view = got.body as StudyView;
    if (killedAt === undefined) holderBefore = view.lease?.holder ?? holderBefore;
    else if (view.lease && view.lease.holder !== holderBefore) resumed(`its lease: ${view.lease.holder}`);
    else if (over(view.step)) resumed(`the study ${view.step}`);
    const now = `${view.step}${view.percent !== undefined ? ` ${view.percent}%` : ''}${view.eta_s !== undefined ? `, ${view.eta_s} s left` : ''}`;
    if (now !== said) log(`GET /v1/studies/${id}: ${(said = now)}`);
  }
  await restarting;
  await Promise.race([events, sleep(5000)]);
  outcome.final = view;
  writeFileSync(join(o.out, 'study-http.json'), `${JSON.stringify(view, null, 2)}\n`);
  log(`study ${id} ${view!.step}${view!.failure ? `: ${view!.failure}` : ''}, ${since(postedAt)} s after the POST`);

  outcome.reportFiles = await saveReport(service, id, record, o);
  await fetchResults(view!, id, o);
  const stopped = await service.stop();
  record.stopped_exit = stopped?.code ?? stopped?.signal ?? null;
  return outcome;
}
