/**
 * The study rehearsed whole, the study's four volumes (gp3, gp3 with IOPS and throughput, io2, st1)
 * at 20 s a test, in the two ways its goals state, at once:
 *
 * - `npm run rehearse:fleet -- --out DIR --kill-controller` (issue 35's goal): the members are
 *   autonomous; the controlling CLI is killed with SIGKILL once every member runs, and `fleet
 *   attach` from an empty state directory (another machine) finishes the study from S3. Expected:
 *   within 15 minutes, every member with no inbound rule, the controller killed and resumed from
 *   s3, every gated test within 0.85–1.10 with a bound_by, st1 on an HDD suite, nothing left in
 *   moto (schedules included).
 * - `npm run rehearse:fleet -- --out DIR --via-http` (issue 36's goal): a `volbench serve --studies`
 *   is the control plane; the study is started with one POST /v1/studies and followed with GET and
 *   its events; once every member runs the service is killed with SIGKILL and started again on its
 *   data directory, and resumes the study. Expected: within 15 minutes, study.json with driver
 *   "http", the study's id, the service killed and restarted, a study in a region not allowed and
 *   one over the cost cap refused first (naming the region; with the estimate); DIR/report.json
 *   (the service's report) with verdicts and context.rehearsal; every gated test within 0.85–1.10
 *   with a bound_by, st1 on an HDD suite, nothing left in moto.
 *
 * The two run at once, as two users' studies would: each has its own --out, moto, fleet, loop
 * devices, blkio groups and member networks, and mostly waits on its members' throttled volumes.
 * A few minutes on a 2-core host (each goal allows 15): they run with the costly tests, in the
 * `package` project.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';
import { expectGoal, readStudy, rehearse, runBundle } from './rehearsal-run.js';

const needs = requires('child', 'blkio', 'netns', 'moto', 'awscli', 'bundle', 'dist');

const skip = needs.missing();

describe.skipIf(skip)(`the study rehearsed whole${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let work: string;
  let bundle: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'volbench-study-whole-'));
    bundle = await runBundle();
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** One whole study rehearsed into work/NAME with ARGS, held to the goal within its 15 minutes. */
  async function wholeStudy(name: string, args: string[]) {
    const out = join(work, name);
    const run = await rehearse(['--out', out, ...args, '--package', bundle]);
    const study = readStudy(out);
    expectGoal(study, run);
    expect(study.wall_s).toBeLessThan(15 * 60);
    return { out, study };
  }

  it.concurrent('--kill-controller: four autonomous members, the controller killed once they run and resumed from S3: the goal met within 15 minutes', async () => {
    const { study } = await wholeStudy('kill-controller', ['--kill-controller']);
    expect(study.mode).toBe('autonomous');
    expect(study.controller).toMatchObject({ killed: true, resumed: true, resumed_from: 's3', killed_exit: 'SIGKILL', resumed_exit: 0 });
    expect(study.volumes.map((v) => [v.label, v.inbound_rules])).toEqual([
      ['gp3-500g', 0], ['gp3-500g-6000iops-250mibs', 0], ['io2-500g-16000iops', 0], ['st1-2t', 0]]);
    expect(study.volumes.find((v) => v.type === 'st1')?.suite).toBe('aws-hdd');
  }, 20 * 60_000);

  it.concurrent('--via-http: one POST starts it, GET and the events follow it, the service killed and restarted mid-study resumes it: the goal met within 15 minutes', async () => {
    const { out, study } = await wholeStudy('via-http', ['--via-http']);
    expect(study.driver).toBe('http');
    expect(study.study_id).toMatch(/^vb[0-9a-f]{10}$/);
    expect(study.fleet_id).toBe(study.study_id);
    expect(study.service).toMatchObject({ killed: true, restarted: true, killed_exit: 'SIGKILL', requests: { post: 3 } });
    // Refused first, nothing made: the study in a region not allowed, naming it; over the cap, with its estimate.
    expect(study.service!.refusals).toEqual([
      expect.objectContaining({ status: 403, field: 'region', limit: '--study-regions', detail: expect.stringContaining('region eu-west-1') }),
      expect.objectContaining({ status: 422, limit: '--study-max-cost', estimated_usd: expect.any(Number) }),
    ]);
    expect(study.service!.gap_s).toBeGreaterThan(0);
    // The restarted service took the study on by itself: its lease, then the study to its end.
    expect(study.service!.resumed_s).toBeGreaterThanOrEqual(study.service!.gap_s!);
    expect(study.service!.requests.event_connections).toBeGreaterThanOrEqual(2);
    expect(study.volumes.find((v) => v.type === 'st1')?.suite).toBe('aws-hdd');
    expect(study.volumes.map((v) => v.inbound_rules)).toEqual([0, 0, 0, 0]);

    // The service's own report, as GET /v1/studies/{id}/report?format=json answered it.
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.context.rehearsal).toMatchObject({ rate: 0.25, time: 0.1 });
    expect(report.verdicts.length).toBeGreaterThan(0);
    expect(report.lines.verdicts.length).toBe(report.verdicts.length);
    const post = JSON.parse(readFileSync(join(out, 'post.json'), 'utf8'));
    expect(post).toMatchObject({ status: 202, response: { id: study.study_id, step: 'planned', links: { self: `/v1/studies/${study.study_id}` } } });
    // The events, across the kill: the study's steps to done, every member done and collected.
    const events = readFileSync(join(out, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events.filter((e) => e.event === 'member-done').map((e) => e.data.label).sort()).toEqual(study.volumes.map((v) => v.label).sort());
    expect(events.at(-1)).toMatchObject({ event: 'study', data: { step: 'done' } });
  }, 20 * 60_000);
});
