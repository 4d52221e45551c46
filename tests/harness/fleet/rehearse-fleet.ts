/**
 * `npm run rehearse:fleet -- --out DIR`: the mission's study, whole, on this machine. The user's
 * `volbench fleet compare` runs against moto behind the SignalResource stand-in; each stack it
 * creates is played by a member sandbox (its rendered user data run unchanged as root, its loop
 * volume as /dev/nvme1n1 held to the catalog's model by the blkio throttle at the stated rate and
 * time factors, publishing its EBS statistics page); then the report (DIR/report.json, .md, .html,
 * from the results as `volbench report` reads them: scaled, with the rehearsal's banner), the
 * study's teardown, a listing of everything left in moto, and DIR/study.json. It tests the
 * plumbing end to end, not AWS's model.
 *
 * The members are autonomous (a study's: each runs its spec and writes under its own prefix,
 * reached by nothing); `--interactive` drives them over HTTPS through port forwards instead
 * (`compare --interactive`, as `fleet up` + `fleet run` do). `--kill-controller` kills the
 * controlling CLI with SIGKILL once every member runs, and resumes the study with `fleet attach`
 * from an empty state directory, as another machine would. `--via-http` has a volbench service
 * drive the study instead, as a pipeline would use it: `volbench serve --studies` started as the
 * control plane, the study created with `POST /v1/studies` and followed with GET and its events,
 * the service killed with SIGKILL once every member runs and started again to resume it, and the
 * report saved from `GET /v1/studies/{id}/report` (via-http.ts).
 *
 * Options: --out DIR (required), --volumes V (default the study's four), --instance TYPE,
 * --runtime T (the suites' runtime, default 20s), --rate R (0.25), --time T (0.1),
 * --boot-timeout S (seconds for a member's signal, default 300), --package FILE (the bundle
 * fleet compare uploads; default: bundles/ as `npm run bundle` makes it), --interactive,
 * --kill-controller, --via-http.
 *
 * It runs from the sources (node --import ./tests/harness/from-source.js); the volbench it drives
 * is the built CLI (dist/), as a user's is.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { CloudFormationClient, type Stack } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import type { FioJson } from '../../../src/fio-output/fio-result.js';
import { catalogPricer, readReportFile, renderReportFiles, type Report } from '../../../src/publish/index.js';
import { sweepStale, rehearsalDir } from '../loop-volume.js';
import { SignalStandIn } from '../sandbox/signal-standin.js';
import { cli, ROOT, type Running } from './cli-run.js';
import { Cleanup } from './cleanup.js';
import { HostLoadSampler } from './host-load.js';
import { leftovers } from './leftovers.js';
import { lockOut } from './out-lock.js';
import { awsDefaultVpc, startMoto } from '../moto.js';
import { playMember, type PlannedMember, type PlayedMember } from './play-member.js';
import { checkPrerequisites } from './prerequisites.js';
import { fireSchedule, listSchedules } from './scheduler.js';
import { attachReportCells, studyReport, volumeTests, verdict, type ReapDemo, type Study, type StudyController, type StudyVolume } from './study.js';
import { forward, freePort } from './forward.js';
import { runViaHttp } from './via-http.js';
import { waitForStack } from './wait-stack.js';

const REGION = 'us-east-1';
const BUCKET = 'volbench-rehearsal';
const STUDY = 'gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t';
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
/** The template's default service port, when the stack does not name one. */
const DEFAULT_SERVICE_PORT = 8443;
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' }, volumes: { type: 'string' }, instance: { type: 'string' }, runtime: { type: 'string' },
    rate: { type: 'string' }, time: { type: 'string' }, 'boot-timeout': { type: 'string' }, package: { type: 'string' },
    interactive: { type: 'boolean' }, 'kill-controller': { type: 'boolean' }, 'via-http': { type: 'boolean' },
  },
});
const modes = (['interactive', 'kill-controller', 'via-http'] as const).filter((m) => args[m]);
if (!args.out || modes.length > 1) {
  process.stderr.write('usage: npm run rehearse:fleet -- --out DIR [--volumes V] [--instance TYPE] [--runtime T] [--rate R] [--time T] ' +
    '[--boot-timeout S] [--package FILE] [--interactive | --kill-controller | --via-http]\n');
  if (modes.length > 1) process.stderr.write(`--${modes.join(' and --')}: one of them (the study has one driver: the CLI, killed or not, or a service)\n`);
  process.exit(2);
}
const out = resolve(args.out);
const mode: Study['mode'] = args.interactive ? 'interactive' : 'autonomous';
const volumes = args.volumes ?? STUDY;
const instance = args.instance ?? 'm6i.large';
const runtime = args.runtime ?? '20s';
// time 0.1: the instance's 30 burst minutes become 180 s and st1's 2 TiB bucket 51 GiB, so no bucket
// empties under a gated test (the cliff is the burst analyses' to find, not this study's).
const scale = { rate: Number(args.rate ?? 0.25), time: Number(args.time ?? 0.1) };
const bootTimeoutMs = Number(args['boot-timeout'] ?? 300) * 1000;
const bundle = resolve(args.package ?? join(ROOT, 'bundles', `volbench-${VERSION}-linux-x64.tar.gz`));
mkdirSync(out, { recursive: true });
const started = Date.now();
const logFile = createWriteStream(join(out, 'rehearsal.log'));
const log = (line: string) => {
  const text = `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`;
  process.stderr.write(text);
  logFile.write(text);
};
const since = (t: number) => Math.round((Date.now() - t) / 100) / 10;
const cleanup = new Cleanup();

/** A CLI run the cleanup ends (SIGKILL) if the rehearsal ends first. */
function tracked(run: Running, what: string): Running {
  cleanup.add(what, () => {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  });
  return run;
}

/**
 * `fleet up` killed with SIGKILL once its stack exists (nothing of it can tear down). AWS would
 * fire its expiry schedules at the expiry (moto never does): the rehearsal calls their target,
 * the DeleteStack each names. Then `fleet reap` with the clock past the expiry: what it finds by
 * the volbench:expires tag and deletes, as the fleet's stacks name it.
 */
async function reapDemo(env: NodeJS.ProcessEnv, cfn: CloudFormationClient, direct: { region: string; endpoint: string; credentials: typeof CREDENTIALS }): Promise<ReapDemo> {
  const up = await tracked(cli(['fleet', 'up', '--volumes', 'gp3:8g', '--instance', instance, '--region', REGION, '--bucket', BUCKET, '--allowed-cidr', '10.213.0.0/16',
    '--ttl', '30m', '--yes', '--package', bundle], env, log, {
    stateDir: join(out, 'state', 'reap-demo'),
    onCreated: (id, child) => {
      waitForStack(cfn, `volbench-${id}-gp3-8g`, 120_000).catch(() => {}).then(() => child.kill('SIGKILL'));
    },
  }), 'fleet up (reap demo)').done;
  const fleet = up.fleetId;
  log(`reap demo: fleet up of ${fleet} killed (${up.signal ?? up.code}) with its stack created`);
  const fired = [];
  for (const s of await listSchedules(direct)) {
    if (!fleet || !(s.GroupName.includes(fleet) || s.Name.includes(fleet) || (s.Target.Input ?? '').includes(`volbench-${fleet}-`))) continue;
    fired.push(await fireSchedule(direct, s));
  }
  for (const f of fired) log(`reap demo: fired ${f.schedule} as AWS would at its expiry: ${f.outcome}`);
  const now = new Date(Date.now() + 2 * 3600_000).toISOString();
  // --yes: reap asks first, and with no terminal (as here) deletes nothing without it.
  const reap = await tracked(cli(['fleet', 'reap', '--region', REGION, '--bucket', BUCKET, '--now', now, '--format', 'json', '--yes'], env, log), 'fleet reap').done;
  let found: ReapDemo['found'];
  try {
    found = JSON.parse(reap.stdout);
  } catch {
    found = { error: reap.stderr.trim().split('\n').slice(-2).join(' ') };
  }
  return { killed_fleet: fleet, up_exit: up.signal ?? up.code, now, exit: reap.code, found, fired_schedules: fired };
}

/** Every prerequisite, one line each; the rehearsal stops before anything starts when one is missing. */
function prerequisites(study: Study): boolean {
  const checks = checkPrerequisites({ root: ROOT, bundle });
  for (const c of checks) log(`prerequisite ${c.ok ? 'ok  ' : 'MISSING'} ${c.name}: ${c.detail}`);
  study.prerequisites = checks;
  return checks.every((c) => c.ok);
}

interface Played { label: string; played: Promise<PlayedMember | { label: string; error: string }> }
interface PlayContext {
  aws: SignalStandIn; cfn: CloudFormationClient; direct: { region: string; endpoint: string; credentials: typeof CREDENTIALS }; dir: string; played: Played[];
}
/** A plan as `fleet plan --format json` prints it: its members and its estimate. */
interface Plan { members: PlannedMember[]; estimatedUsd?: number }

/** Plays each member of study `fleetId` once its stack is complete in moto; `onReady` as each one runs. */
function playStacks(fleetId: string, plan: Plan, ctx: PlayContext, onReady: (pm: PlannedMember, played: PlayedMember, stack: Stack) => unknown): void {
  for (const pm of plan.members) {
    const stackName = `volbench-${fleetId}-${pm.label}`;
    ctx.played.push({ label: pm.label, played: (async () => {
      const stack = await waitForStack(ctx.cfn, stackName, 300_000);
      const played = await playMember({ plan: pm, stackName, instance, aws: ctx.aws, sdk: ctx.direct, dir: ctx.dir, scale, bootTimeoutMs, log, cleanup });
      if (played.ready) await onReady(pm, played, stack);
      return played;
    })().catch((err: Error) => ({ label: pm.label, error: err.message })) });
  }
}

/**
 * The study's command, each of its stacks played as it appears. With --kill-controller, the
 * command is killed once every member runs, and `fleet attach` resumes the study from S3 with an
 * empty state directory. Answers the command's (or the resumed one's) run, and the fleet's id.
 */
async function runStudy(study: Study, env: NodeJS.ProcessEnv, plan: Plan, ctx: PlayContext): Promise<{ result: Awaited<Running['done']>; fleetId?: string }> {
  const forwards: { close(): void }[] = [];
  cleanup.add('port forwards', () => { for (const f of forwards) f.close(); });
  const ports: Record<string, number> = Object.fromEntries(await Promise.all(plan.members.map(async (m) => [m.label, await freePort()])));
  const mapFile = join(out, 'endpoint-map.json');
  if (mode === 'interactive') writeFileSync(mapFile, JSON.stringify(Object.fromEntries(plan.members.map((m) => [m.label, `https://127.0.0.1:${ports[m.label]}`]))));
  const argv = ['fleet', 'compare', ...(mode === 'interactive' ? ['--interactive', '--allowed-cidr', '10.213.0.0/16', '--endpoint-map', mapFile] : []),
    '--volumes', volumes, '--instance', instance, '--suite', 'auto', '--runtime', runtime, '--region', REGION, '--bucket', BUCKET,
    '--out', join(out, 'results'), '--yes',
    // Members shut down at their expiry × the time factor: a TTL the rehearsal's boots under load fit in.
    '--ttl', '2h', '--package', bundle];
  study.command = `volbench ${argv.join(' ')}`;
  log(`running: ${study.command}`);
  let fleetId: string | undefined;
  let upAt = 0;
  const running: number[] = [];
  let compare: Running | undefined;
  let killedAt: number | undefined;
  const controller: StudyController | undefined = args['kill-controller'] ? { killed: false, resumed: false, resumed_from: null } : undefined;
  if (controller) study.controller = controller;
  const allRunning = () => {
    if (running.length !== plan.members.length) return;
    study.up_to_all_running_s = Math.max(...running);
    log(`every member runs, ${study.up_to_all_running_s} s after the fleet was created`);
    if (controller && compare) {
      killedAt = Date.now();
      controller.killed_at_s = since(upAt);
      log('--kill-controller: SIGKILL to the controlling CLI; another machine takes the study over from S3');
      compare.child.kill('SIGKILL');
      controller.killed = true;
    }
  };
  compare = tracked(cli(argv, env, log, { stateDir: join(out, 'state', 'compare'), onCreated: (id) => {
    fleetId = id;
    upAt = Date.now();
    playStacks(id, plan, ctx, async (pm, played, stack) => {
      const port = Number(stack.Parameters?.find((p) => p.ParameterKey === 'ServicePort')?.ParameterValue ?? DEFAULT_SERVICE_PORT);
      if (mode === 'interactive') forwards.push(await forward(ports[pm.label], played.member!.address, port));
      running.push(since(upAt));
      allRunning();
    });
  } }), 'fleet compare');
  let result = await compare.done;
  writeFileSync(join(out, 'compare.log'), result.stderr);
  study.compare_exit = result.code ?? result.signal;
  log(`fleet compare ended: ${result.code ?? result.signal}`);
  writeFileSync(join(out, 'compare.md'), result.stdout);
  if (controller?.killed && fleetId) {
    controller.killed_exit = result.signal ?? result.code;
    // Another machine: no local state at all (an empty state directory and XDG_STATE_HOME).
    const elsewhere = join(out, 'state', 'attach');
    const attachEnv = { ...env, XDG_STATE_HOME: join(out, 'state-home-attach') };
    const attachArgv = ['fleet', 'attach', fleetId, '--bucket', BUCKET, '--region', REGION, '--out', join(out, 'results'), '--wait', '--format', 'json'];
    controller.resumed_command = `volbench ${attachArgv.join(' ')} --state-dir ${elsewhere}`;
    log(`resuming from S3: ${controller.resumed_command}`);
    controller.kill_to_attach_s = since(killedAt!);
    // Resumed: its first event past the wait for the dead driver's lease (a step, a member), read from its events.
    const events: string[] = [];
    const attach = tracked(cli(attachArgv, attachEnv, log, { stateDir: elsewhere }, (line) => {
      events.push(line);
      if (controller.kill_to_resume_s !== undefined) return;
      try {
        if ((JSON.parse(line) as { event?: string }).event !== 'log') controller.kill_to_resume_s = since(killedAt!);
      } catch {
        // Not an event: its report's text, after the events.
      }
    }), 'fleet attach');
    result = await attach.done;
    controller.kill_to_done_s = since(killedAt!);
    controller.resumed_exit = result.code ?? result.signal;
    // It started with no local state (its state directory emptied, XDG_STATE_HOME new): a study it
    // drove to its end (0, or 1 for a gate) it can only have found in S3.
    controller.resumed = result.code === 0 || result.code === 1;
    controller.resumed_from = controller.resumed ? 's3' : null;
    writeFileSync(join(out, 'attach.log'), result.stderr);
    writeFileSync(join(out, 'attach.jsonl'), events.map((e) => `${e}\n`).join(''));
    log(`fleet attach ended: ${result.code ?? result.signal}, ${controller.kill_to_resume_s} s after the kill it drove the study, ${controller.kill_to_done_s} s after it was done`);
  }
  return { result, fleetId };
}

/**
 * --via-http: a volbench service drives the study (POST /v1/studies, followed by GET and its
 * events), killed with SIGKILL once every member runs and started again on its data directory.
 * Its limits are an operator's: this study's region, instance type and volume types, one study at
 * a time, and a cost cap the plan's estimate fits (half as much again).
 */
async function runStudyViaHttp(study: Study, env: NodeJS.ProcessEnv, plan: Plan, ctx: PlayContext): Promise<{ fleetId?: string; reportFiles: string[] }> {
  const cap = Math.ceil((plan.estimatedUsd ?? 1) * 150) / 100;
  const types = [...new Set(plan.members.map((m) => m.volume.type))];
  const studyFlags = ['--studies', '--study-bucket', BUCKET, '--study-regions', REGION, '--study-max-cost', String(cap), '--study-max-concurrent', '1',
    '--study-instance-types', instance, '--study-volume-types', types.join(','), '--study-package', bundle];
  // Members shut down at their expiry × the time factor: a TTL the rehearsal's boots under load fit in.
  const body = { volumes: volumes.split(','), instance, suite: 'auto', runtime, region: REGION, bucket: BUCKET, ttl: '2h' };
  study.driver = 'http';
  study.command = `POST /v1/studies ${JSON.stringify(body)}`;
  log(`running: ${study.command}, on a service with a cost cap of $${cap} (the plan's estimate $${plan.estimatedUsd})`);
  const running: number[] = [];
  const got = await runViaHttp({
    out, env, log, cleanup, body, studyFlags, direct: ctx.direct, deadlineMs: 15 * 60_000,
    play: (id, allRunning) => {
      const upAt = Date.now();
      playStacks(id, plan, ctx, () => {
        running.push(since(upAt));
        if (running.length !== plan.members.length) return;
        study.up_to_all_running_s = Math.max(...running);
        log(`every member runs, ${study.up_to_all_running_s} s after the POST`);
        allRunning();
      });
    },
  });
  study.study_id = got.studyId;
  study.service = got.service;
  return { fleetId: got.studyId, reportFiles: got.reportFiles };
}

/** Where the study's collector saved a member's result. */
const resultFile = (fleetId: string | undefined, label: string) => (fleetId ? join(out, 'results', fleetId, `${label}.json`) : undefined);

/**
 * The report of the results as `volbench report` renders them from the saved files (each
 * result's own scale and statistics applied: the rehearsal's banner, entitlements scaled as the
 * volumes were held), published as DIR/report.json, report.md and report.html; its first screen
 * and each test's cell go into the study, which the goal holds to the same band.
 */
async function publishReport(study: Study, files: string[], fleetId: string | undefined): Promise<void> {
  if (files.length === 0) return;
  try {
    const inputs = await Promise.all(files.map((f) => readReportFile(f)));
    const { report, files: rendered } = await renderReportFiles(inputs, { priceVolume: catalogPricer(REGION), command: study.command });
    for (const [name, text] of Object.entries(rendered)) writeFileSync(join(out, name), text);
    study.report = studyReport(report, Object.keys(rendered));
    attachReportCells(study.volumes, report, (label) => resultFile(fleetId, label));
    log(`report: ${Object.keys(rendered).join(', ')}: ${study.report.title}; ${study.report.banner ?? 'no rehearsal banner'}`);
  } catch (err) {
    study.notes.push(`report: ${(err as Error).message}`);
  }
}

/**
 * --via-http: the report as GET /v1/studies/{id}/report answered it (saved as DIR/report.*),
 * its rows named by member label; its first screen and each test's cell go into the study.
 */
function httpReport(study: Study, files: string[]): void {
  if (!files.includes('report.json')) {
    study.notes.push('report: GET /v1/studies/{id}/report?format=json did not answer 200');
    return;
  }
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  study.report = studyReport(report, files);
  attachReportCells(study.volumes, report, (label) => label);
  log(`report (over HTTP): ${files.join(', ')}: ${study.report.title}; ${study.report.banner ?? 'no rehearsal banner'}`);
}

/** One volume's entry in study.json: how its member played, and its tests against the scaled model. */
function volumeEntry(pm: PlannedMember, p: Partial<PlayedMember>, fleetId: string | undefined): StudyVolume {
  const entry: StudyVolume = { label: pm.label, type: pm.volume.type, suite: pm.suite!, tests: [] };
  if (p.error) entry.error = p.error;
  if (p.boot) entry.boot = p.boot;
  if (p.throttle) entry.throttle = p.throttle;
  if (p.inboundRules !== undefined) entry.inbound_rules = p.inboundRules;
  if (p.ended) entry.ended = p.ended;
  const file = resultFile(fleetId, pm.label);
  try {
    const doc: FioJson = JSON.parse(readFileSync(file!, 'utf8'));
    entry.tests = volumeTests(doc, scale, p.countedBytes ?? 256 * 1024);
    entry.emulation = doc.volbench?.cloud?.emulation ?? null;
    if (doc.volbench?.ebs_stats_unavailable) entry.ebs_stats_unavailable = doc.volbench.ebs_stats_unavailable;
    entry.host = { instance_id: doc.volbench?.cloud?.instance_id, image_id: doc.volbench?.cloud?.image_id, kernel: doc.volbench?.kernel, version: doc.volbench?.version };
  } catch {
    entry.error ??= 'no result';
  }
  return entry;
}

/** Waits (a little) for autonomous members to shut themselves down, then stops every member and its volume. */
async function endMembers(played: Played[]): Promise<Array<PlayedMember | { label: string; error: string }>> {
  const all = await Promise.all(played.map((p) => p.played));
  if (mode === 'autonomous') {
    await Promise.race([
      Promise.all(all.map((p) => ('member' in p && p.member ? p.member.ended : undefined))),
      new Promise((r) => setTimeout(r, 30_000)),
    ]);
  }
  await Promise.all(all.map((p) => ('stop' in p ? p.stop() : undefined)));
  return all;
}

async function main(study: Study): Promise<void> {
  log('This rehearsal tests the plumbing end to end, not AWS\'s model: the volumes are loop devices held to the catalog\'s own model.');
  log(`members ${mode}${args['kill-controller'] ? ', the controller killed once they run and resumed from S3' : ''}` +
    `${args['via-http'] ? ', the study driven by a volbench service over HTTP, killed once they run and restarted' : ''}; scale: rate × ${scale.rate}, time × ${scale.time}; suites' runtime ${runtime}`);
  for (const s of sweepStale()) log(`swept what a killed run left: ${s}`);
  const moto = await startMoto(REGION, { logFile: join(out, 'moto.log') });
  cleanup.add('moto', () => moto.stop());
  // moto's default VPC lacks the internet gateway and route AWS gives every default VPC.
  await awsDefaultVpc(moto, REGION);
  // Each stack's creation waits for its member's signal, as CloudFormation's creation policy makes it.
  const aws = new SignalStandIn({ moto: moto.endpoint, holdCreation: /^volbench-vb[0-9a-f]{10}-/ });
  cleanup.add('the SignalResource stand-in', () => aws.close());
  const front = await aws.listen('127.0.0.1');
  const dir = rehearsalDir();
  const env: NodeJS.ProcessEnv = {
    ...process.env, AWS_ENDPOINT_URL: front.url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: REGION,
    XDG_STATE_HOME: join(out, 'state-home'),
  };
  delete env.AWS_PROFILE;
  const sdk = { region: REGION, endpoint: front.url, credentials: CREDENTIALS };
  const s3 = new S3Client({ ...sdk, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3.destroy();
  // The rehearsal's own view of what exists: moto itself, not the fleet's view through the stand-in.
  const direct = { ...sdk, endpoint: moto.endpoint };
  const cfn = new CloudFormationClient(direct);
  cleanup.add('its CloudFormation client', () => cfn.destroy());
  const plan: Plan = JSON.parse((await cli(['fleet', 'plan', '--volumes', volumes, '--instance', instance, '--region', REGION,
    '--runtime', runtime, '--format', 'json'], env, log).done).stdout);
  const played: Played[] = [];
  const ctx = { aws, cfn, direct, dir, played };
  const viaHttp = args['via-http'] ? await runStudyViaHttp(study, env, plan, ctx) : undefined;
  const { fleetId } = viaHttp ?? await runStudy(study, env, plan, ctx);
  const members = await endMembers(played);
  study.fleet_id = fleetId;
  for (const pm of plan.members) study.volumes.push(volumeEntry(pm, members.find((x) => x.label === pm.label) ?? { label: pm.label, error: 'never played' }, fleetId));
  // The report of the results as saved, whoever collected them (compare, or attach after a kill);
  // over HTTP, the service's own.
  if (viaHttp) httpReport(study, viaHttp.reportFiles);
  else await publishReport(study, plan.members.map((m) => resultFile(fleetId, m.label)).filter((f): f is string => f !== undefined && existsSync(f)), fleetId);
  // What fleet down left, listed by kind; then reap shown finding by tag what a killed `up` left.
  // A fleet's record, kept on purpose (reap keeps it too): its results, its state file, which
  // `fleet list --bucket` reads from another machine, and what each member wrote under its prefix.
  // Listed apart, not as leftovers.
  const record = (bucket: string, key: string) => bucket === BUCKET &&
    /^vb[0-9a-f]{10}\/(results\/[^/]+\.json|fleet\.json|study\/(spec|lease)\.json|[^/]+\/(progress\.json|result\.json|done\.json|member\.log))$/.test(key);
  // The study roles (one stack for every fleet of the region, and its two roles) stay, as on AWS.
  const accountWide = (kind: string, item: string) => (kind === 'stacks' || kind === 'iam_roles') && /^volbench-study-roles\b/.test(item);
  const afterDown = await leftovers({ ...direct, isResult: record, isAccountWide: accountWide });
  study.leftovers_after_down = afterDown.counts;
  if (Object.values(afterDown.counts).some((n) => n)) study.leftover_items_after_down = afterDown.items;
  study.reap = await reapDemo(env, cfn, direct);
  const left = await leftovers({ ...direct, isResult: record, isAccountWide: accountWide });
  study.leftovers = left.counts;
  study.leftover_items = left.items;
  study.kept_in_s3 = left.kept;
  study.kept_in_account = left.account;
}

function finish(study: Study, load: HostLoadSampler): void {
  study.wall_s = Math.round((Date.now() - started) / 1000);
  study.host_load = load.stop();
  study.problems = [...(study.problems ?? []), ...verdict(study)];
  writeFileSync(join(out, 'study.json'), `${JSON.stringify(study, null, 2)}\n`);
  log(`host load: 1-min average ${study.host_load.load1.mean} (max ${study.host_load.load1.max}) on ${study.host_load.cpus} CPUs, ` +
    `${study.host_load.busy_pct}% busy, ${study.host_load.steal_pct}% stolen`);
  log(`study.json: ${join(out, 'study.json')}; ${study.problems.length ? `${study.problems.length} problem(s):\n  ${study.problems.join('\n  ')}` : 'every goal met'}`);
  log('This tested the plumbing end to end, not AWS\'s model.');
}

const study: Study = { wall_s: 0, mode, driver: args['via-http'] ? 'http' : 'cli', scale, runtime, instance, command: '', volumes: [], leftovers: {}, notes: [] };
let lock;
try {
  lock = lockOut(out);
} catch (err) {
  log((err as Error).message);
  process.exit(2);
}
cleanup.add('the lock on --out', () => lock.release());
if (lock.tookOver) log(`took over ${lock.file} from pid ${lock.tookOver}, which is gone`);
if (!prerequisites(study)) {
  log('a prerequisite is missing: nothing was started');
  lock.release();
  process.exit(2);
}
const load = new HostLoadSampler();
// After a signal, study.json says so: what then fails as its moto and members go says nothing more.
let interrupted = false;
cleanup.onSignals(log, (sig) => {
  interrupted = true;
  study.problems = [`interrupted by ${sig}`];
  finish(study, load);
});
main(study).then(async () => {
  if (interrupted) return;
  await cleanup.run(log);
  finish(study, load);
  logFile.end();
  process.exit(study.problems?.length ? 1 : 0);
}, async (err: Error) => {
  if (interrupted) return;
  log(`rehearsal failed: ${err.stack ?? err}`);
  await cleanup.run(log);
  study.problems = [`rehearsal failed: ${err.message}`];
  finish(study, load);
  process.exit(1);
});
