/**
 * `npm run rehearse:fleet -- --out DIR`: the mission's study, whole, on this machine. The user's
 * `volbench fleet compare` runs against moto behind the SignalResource stand-in; each stack it
 * creates is played by a member sandbox (its rendered user data run unchanged as root, its loop
 * volume as /dev/nvme1n1 held to the catalog's model by the blkio throttle at the stated rate and
 * time factors); then the report, `fleet down`, a listing of everything left in moto, and
 * DIR/study.json. It tests the plumbing end to end, not AWS's model.
 *
 * Options: --out DIR (required), --volumes V (default the study's four), --instance TYPE,
 * --runtime T (the suites' runtime, default 20s), --rate R (0.25), --time T (0.1),
 * --boot-timeout S (seconds for a member's Ready signal, default 300), --package FILE (the bundle
 * fleet compare uploads; default: bundles/ as `npm run bundle` makes it).
 *
 * It runs from the sources (node --import ./tests/harness/from-source.js); the volbench it drives
 * is the built CLI (dist/), as a user's is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

import type { FioJson } from '../../../src/fio-output/fio-result.js';
import { sweepStale, rehearsalDir } from '../loop-volume.js';
import { SignalStandIn } from '../sandbox/signal-standin.js';
import { modelEntitlement } from '../catalog-spec.js';
import { watchCreated } from './fleet-created.js';
import { leftovers } from './leftovers.js';
import { awsDefaultVpc, startMoto } from '../moto.js';
import { playMember, type PlannedMember, type PlayedMember } from './play-member.js';
import { volumeTests, verdict, type ReapDemo, type Study, type StudyVolume } from './study.js';
import { forward, freePort } from './forward.js';

interface CliRun { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; fleetId?: string }
/** A command that creates a fleet: its own state directory, and who to tell once the fleet exists. */
interface Creates { stateDir: string; onCreated?: (fleetId: string, child: ChildProcess) => void }

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const REGION = 'us-east-1';
const BUCKET = 'volbench-rehearsal';
const STUDY = 'gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t';
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
/** The template's default service port, when the stack does not name one. */
const DEFAULT_SERVICE_PORT = 8443;

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' }, volumes: { type: 'string' }, instance: { type: 'string' }, runtime: { type: 'string' },
    rate: { type: 'string' }, time: { type: 'string' }, 'boot-timeout': { type: 'string' }, package: { type: 'string' },
  },
});
if (!args.out) {
  process.stderr.write('usage: npm run rehearse:fleet -- --out DIR [--volumes V] [--instance TYPE] [--runtime T] [--rate R] [--time T]\n');
  process.exit(2);
}
const out = resolve(args.out);
const volumes = args.volumes ?? STUDY;
const instance = args.instance ?? 'm6i.large';
const runtime = args.runtime ?? '20s';
// time 0.1: the instance's 30 burst minutes become 180 s and st1's 2 TiB bucket 51 GiB, so no bucket
// empties under a gated test (the cliff is the burst analyses' to find, not this study's).
const scale = { rate: Number(args.rate ?? 0.25), time: Number(args.time ?? 0.1) };
const bootTimeoutMs = Number(args['boot-timeout'] ?? 300) * 1000;
mkdirSync(out, { recursive: true });
const logFile = createWriteStream(join(out, 'rehearsal.log'));
const log = (line: string) => {
  const text = `[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`;
  process.stderr.write(text);
  logFile.write(text);
};
const started = Date.now();

/**
 * Runs the built CLI. A command that creates a fleet gets `creates.stateDir` (emptied first) as
 * its --state-dir, and the run answers the fleet's id.
 */
function cli(argv: string[], env: NodeJS.ProcessEnv, creates?: Creates): Promise<CliRun> {
  if (creates) rmSync(creates.stateDir, { recursive: true, force: true });
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...argv, ...(creates ? ['--state-dir', creates.stateDir] : [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const watch = creates && watchCreated(creates.stateDir, (fleetId) => creates.onCreated?.(fleetId, child));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) if (line) log(`  | ${line}`);
    });
    child.on('exit', (code, signal) => done({ code, signal, stdout, stderr, ...(watch ? { fleetId: watch.stop() } : {}) }));
  });
}

async function waitForStack(cfn: CloudFormationClient, name: string, ms: number): Promise<Stack> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const s = (await cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      if (s?.StackStatus === 'CREATE_COMPLETE') return s;
      if (s?.StackStatus && /FAILED|ROLLBACK|DELETE/.test(s.StackStatus)) throw new Error(`${name}: ${s.StackStatus}`);
    } catch (err) {
      if (!/does not exist/.test(String((err as Error).message))) throw err;
    }
    if (Date.now() > deadline) throw new Error(`${name}: not created within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * `fleet up` killed with SIGKILL once its stack exists (nothing of it can tear down), then
 * `fleet reap` with the clock past its expiry: what it finds by the volbench:expires tag and
 * deletes, as the fleet's stacks name it.
 */
async function reapDemo(env: NodeJS.ProcessEnv, cfn: CloudFormationClient): Promise<ReapDemo> {
  const up = cli(['fleet', 'up', '--volumes', 'gp3:8g', '--instance', instance, '--region', REGION, '--bucket', BUCKET, '--allowed-cidr', '10.213.0.0/16',
    '--ttl', '30m', '--yes', ...(args.package ? ['--package', resolve(args.package)] : [])], env, {
    stateDir: join(out, 'state', 'reap-demo'),
    onCreated: (id, child) => {
      waitForStack(cfn, `volbench-${id}-gp3-8g`, 120_000).catch(() => {}).then(() => child.kill('SIGKILL'));
    },
  });
  const upOut = await up;
  const fleet = upOut.fleetId;
  log(`reap demo: fleet up of ${fleet} killed (${upOut.signal ?? upOut.code}) with its stack created`);
  const now = new Date(Date.now() + 2 * 3600_000).toISOString();
  // --yes: reap asks first, and with no terminal (as here) deletes nothing without it.
  const reap = await cli(['fleet', 'reap', '--region', REGION, '--bucket', BUCKET, '--now', now, '--format', 'json', '--yes'], env);
  let found: ReapDemo['found'];
  try {
    found = JSON.parse(reap.stdout);
  } catch {
    found = { error: reap.stderr.trim().split('\n').slice(-2).join(' ') };
  }
  return { killed_fleet: fleet, up_exit: upOut.signal ?? upOut.code, now, exit: reap.code, found };
}

async function main() {
  log('This rehearsal tests the plumbing end to end, not AWS\'s model: the volumes are loop devices held to the catalog\'s own model.');
  log(`scale: rate × ${scale.rate}, time × ${scale.time}; suites' runtime ${runtime}`);
  for (const s of sweepStale()) log(`swept what a killed run left: ${s}`);
  const moto = await startMoto(REGION);
  // moto's default VPC lacks the internet gateway and route AWS gives every default VPC.
  await awsDefaultVpc(moto, REGION);
  // Each stack's creation waits for its member's Ready signal, as CloudFormation's creation policy makes it.
  const aws = new SignalStandIn({ moto: moto.endpoint, holdCreation: /^volbench-vb[0-9a-f]{10}-/ });
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
  const members: Promise<PlayedMember | { label: string; error: string }>[] = [];
  const forwards: { close(): void }[] = [];
  const study: Study = { wall_s: 0, scale, runtime, instance, command: '', volumes: [], leftovers: {}, notes: [] };
  try {
    // The plan names the members; each gets a local port the fleet reaches it through (as a port
    // forward would), written to the endpoint map before compare starts.
    const plan: { members: PlannedMember[] } = JSON.parse((await cli(['fleet', 'plan', '--volumes', volumes, '--instance', instance, '--region', REGION, '--runtime', runtime, '--format', 'json'], env)).stdout);
    const ports: Record<string, number> = Object.fromEntries(await Promise.all(plan.members.map(async (m) => [m.label, await freePort()])));
    const mapFile = join(out, 'endpoint-map.json');
    writeFileSync(mapFile, JSON.stringify(Object.fromEntries(plan.members.map((m) => [m.label, `https://127.0.0.1:${ports[m.label]}`]))));
    const argv = ['fleet', 'compare', '--volumes', volumes, '--instance', instance, '--suite', 'auto', '--runtime', runtime, '--region', REGION,
      '--bucket', BUCKET, '--allowed-cidr', '10.213.0.0/16', '--endpoint-map', mapFile, '--out', join(out, 'results'), '--yes',
      // Members shut down at their expiry × the time factor: a TTL the rehearsal's boots under load fit in.
      '--ttl', '2h',
      ...(args.package ? ['--package', resolve(args.package)] : [])];
    study.command = `volbench ${argv.join(' ')}`;
    log(`running: ${study.command}`);
    let fleetId: string | undefined;
    let upAt = 0;
    const answering: number[] = [];
    const compare = cli(argv, env, { stateDir: join(out, 'state', 'compare'), onCreated: (id) => {
      fleetId = id;
      upAt = Date.now();
      for (const pm of plan.members) {
        const stackName = `volbench-${fleetId}-${pm.label}`;
        members.push((async () => {
          const stack = await waitForStack(cfn, stackName, 300_000);
          const port = Number(stack.Parameters?.find((p) => p.ParameterKey === 'ServicePort')?.ParameterValue ?? DEFAULT_SERVICE_PORT);
          const played = await playMember({ plan: pm, stackName, instance, aws, sdk: direct, dir, scale, bootTimeoutMs, log });
          if (played.ready) {
            forwards.push(await forward(ports[pm.label], played.member!.address, port));
            answering.push((Date.now() - upAt) / 1000);
          }
          return played;
        })().catch((err: Error) => ({ label: pm.label, error: err.message })));
      }
    } });
    const result = await compare;
    writeFileSync(join(out, 'report.md'), result.stdout);
    writeFileSync(join(out, 'compare.log'), result.stderr);
    study.compare_exit = result.code ?? result.signal;
    log(`fleet compare ended: ${result.code ?? result.signal}`);
    const played = await Promise.all(members);
    await Promise.all(played.map((p) => ('stop' in p ? p.stop() : undefined)));
    study.fleet_id = fleetId;
    study.up_to_all_answering_s = answering.length === plan.members.length ? Math.max(...answering) : null;
    for (const pm of plan.members) {
      const p: Partial<PlayedMember> = played.find((x) => x.label === pm.label) ?? { label: pm.label, error: 'never played' };
      const entry: StudyVolume = { label: pm.label, type: pm.volume.type, suite: pm.suite!, tests: [] };
      if (p.error) entry.error = p.error;
      if (p.boot) entry.boot = p.boot;
      if (p.throttle) entry.throttle = p.throttle;
      const file = fleetId ? join(out, 'results', fleetId, `${pm.label}.json`) : undefined;
      try {
        const doc: FioJson = JSON.parse(readFileSync(file!, 'utf8'));
        const v = pm.volume;
        const spec = { type: v.type, sizeGiB: v.sizeGiB, ...(v.iops ? { iops: v.iops } : {}), ...(v.throughputMiBps ? { throughputMiBps: v.throughputMiBps } : {}) };
        entry.tests = volumeTests(doc, scale, p.countedBytes ?? 256 * 1024, (bs, rw) => modelEntitlement(spec, instance, bs, rw));
        entry.host = { instance_id: doc.volbench?.cloud?.instance_id, image_id: doc.volbench?.cloud?.image_id, kernel: doc.volbench?.kernel, version: doc.volbench?.version };
      } catch {
        entry.error ??= 'no result';
      }
      study.volumes.push(entry);
    }
    const resultsDir = fleetId ? join(out, 'results', fleetId) : undefined;
    const files = resultsDir && existsSync(resultsDir) ? readdirSync(resultsDir, { withFileTypes: true }).filter((f) => f.name.endsWith('.json')).map((f) => join(resultsDir, f.name)) : [];
    if (files.length) {
      const html = await cli(['report', ...files, '--format', 'html', '--out', join(out, 'report.html')], env);
      if (html.code !== 0) study.notes.push(`report.html: ${html.stderr.trim().split('\n').pop()}`);
    }
    // What fleet down left, listed by kind; then reap shown finding by tag what a killed `up` left.
    // A fleet's record, kept on purpose (reap keeps it too): its results and its state file, which
    // `fleet list --bucket` reads from another machine. Listed apart, not as leftovers.
    const record = (bucket: string, key: string) => bucket === BUCKET && /^vb[0-9a-f]{10}\/(results\/[^/]+\.json|fleet\.json)$/.test(key);
    const afterDown = await leftovers({ ...direct, isResult: record });
    study.leftovers_after_down = afterDown.counts;
    if (Object.values(afterDown.counts).some((n) => n)) study.leftover_items_after_down = afterDown.items;
    study.reap = await reapDemo(env, cfn);
    const left = await leftovers({ ...direct, isResult: record });
    study.leftovers = left.counts;
    study.leftover_items = left.items;
    study.kept_in_s3 = left.kept;
  } finally {
    for (const f of forwards) f.close();
    cfn.destroy();
    await aws.close();
    await moto.stop();
    study.wall_s = Math.round((Date.now() - started) / 1000);
    study.problems = verdict(study);
    writeFileSync(join(out, 'study.json'), `${JSON.stringify(study, null, 2)}\n`);
    log(`study.json: ${join(out, 'study.json')}; ${study.problems.length ? `${study.problems.length} problem(s):\n  ${study.problems.join('\n  ')}` : 'every goal met'}`);
    log('This tested the plumbing end to end, not AWS\'s model.');
    logFile.end();
  }
  return study.problems.length ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  log(`rehearsal failed: ${err.stack ?? err}`);
  process.exit(1);
});
