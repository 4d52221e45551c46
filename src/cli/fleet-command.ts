/**
 * `volbench fleet plan|up|run|report|down|list|compare`: wiring over src/fleet. Progress goes to
 * stderr as one line per member; `--format json` prints the outcome on stdout for scripts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { VolbenchError } from '../errors.js';
import { awsRegion, fleetUsdPerHour } from '../cloud/index.js';
import {
  defaultStateDir, fleetClients, fleetDown, fleetReportInputs, fleetUp, fleetVolumes, formatPlan, listStates, loadState, planFleet,
  readEndpointMap, runFleet, type FleetClients, type FleetPlan, type FleetState, type MemberResult,
} from '../fleet/index.js';
import { buildPublishReport, catalogPricer, renderMarkdown } from '../publish/index.js';
import { parseJobFile, parseSpec } from '../jobspec/index.js';
import { timedSeconds } from '../plan/index.js';
import type { CommandIo } from './io.js';

export const FLEET_USAGE = `Usage:
  volbench fleet plan    --volumes V --instance TYPE [--suite S] [--runtime T] [--no-precondition] [--region R]
  volbench fleet up      --volumes V --instance TYPE --bucket B [--allowed-cidr CIDR] [--max-cost USD] [--yes]
  volbench fleet run     FLEET_ID [--suite S | --job FILE] [--assert EXPR ...] [--endpoint-map FILE] [--out DIR]
  volbench fleet report  FLEET_ID [--out DIR]
  volbench fleet down    FLEET_ID
  volbench fleet list
  volbench fleet compare --volumes V --instance TYPE --bucket B --out DIR [--keep] [... as up and run]

  --volumes V          TYPE[:SIZE][:iops=N][:throughput=MiB/s][:suite=S], comma-separated, e.g.
                       gp3:500g,gp3:500g:iops=6000:throughput=250,io2:500g:iops=16000,st1:2t:suite=aws-hdd
  --instance TYPE      the instance type (default m6i.large); one instance per volume
  --suite S            a shipped suite, or auto (default): each volume's media's suite from the
                       manifest (aws-ssd on SSD types, aws-hdd on HDD types); suite= in --volumes
                       wins; --job FILE runs a fio job file instead
  --runtime T          the suites' runtime in every test (fio's units: 60, 30s, 2m)
  --no-precondition    skip writing, before a suite that reads, what its read tests reach
                       (fleet plan states the time and cost it adds)
  --region R           default $AWS_REGION; credentials from the default chain, or --profile P
  --bucket B           S3 bucket for results, the fleet's state and the package
  --allowed-cidr CIDR  who may reach the services (default this machine's public address /32)
  --package FILE       an npm pack tarball to install (default: npm pack of this volbench);
  --package-version V  or a published version instead
  --subnet ID --vpc ID launch in a subnet (default: the default VPC)
  --max-cost USD       refuse a study estimated above this (default 20) unless --yes
  --endpoint-map FILE  JSON {label: url}: reach members through a tunnel or VPN
  --out DIR            results/<fleet-id>/<label>.json go here (default results)
  --state-dir DIR      where fleet state files are kept (default ${defaultStateDir()})
  --keep               compare: leave the fleet up (then: volbench fleet down FLEET_ID)
  --format table|json
`;

const OPTIONS = {
  volumes: { type: 'string' },
  instance: { type: 'string' },
  suite: { type: 'string' },
  runtime: { type: 'string' },
  'no-precondition': { type: 'boolean' },
  job: { type: 'string' },
  assert: { type: 'string', multiple: true },
  region: { type: 'string' },
  profile: { type: 'string' },
  bucket: { type: 'string' },
  'allowed-cidr': { type: 'string' },
  package: { type: 'string' },
  'package-version': { type: 'string' },
  subnet: { type: 'string' },
  vpc: { type: 'string' },
  'max-cost': { type: 'string' },
  yes: { type: 'boolean' },
  'endpoint-map': { type: 'string' },
  out: { type: 'string' },
  'state-dir': { type: 'string' },
  keep: { type: 'boolean' },
  format: { type: 'string' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: ${(err as Error).message}`, { accepted: 'see volbench fleet --help' });
  }
}

function need(values: Values, name: keyof Values, what: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new VolbenchError('EINVALID_ARGS', `fleet: --${String(name)} is required (${what})`, { field: `--${String(name)}`, accepted: what });
  return v;
}

function region(values: Values): string {
  return awsRegion(values.region, '--region');
}

/** How long a job file's timed stages take: the study's estimate when it runs instead of a suite. */
function jobSeconds(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: cannot read --job ${file}: ${(cause as Error).message}`, { field: '--job', accepted: 'a fio job file', cause });
  }
  return timedSeconds(parseSpec(parseJobFile(text, {})));
}

function planFrom(values: Values): FleetPlan {
  const fleetWorkloadSeconds = values.job ? jobSeconds(values.job) : undefined;
  const instanceType = values.instance ?? 'm6i.large';
  if (!/^[a-z][a-z0-9-]*\.[a-z0-9]+$/.test(instanceType)) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: '${instanceType}' is not an instance type`, { field: '--instance', accepted: 'e.g. m6i.large' });
  }
  const volumes = fleetVolumes(need(values, 'volumes', 'e.g. gp3:500g,io2:500g:iops=16000'), instanceType);
  const plan = planFleet({
    volumes, instanceType, region: region(values), suite: values.suite, workloadSeconds: fleetWorkloadSeconds,
    ...(values.runtime !== undefined ? { runtime: values.runtime } : {}), precondition: !values['no-precondition'],
  });
  return values.job ? { ...plan, suite: `job file ${values.job}` } : plan;
}

function checkCost(plan: FleetPlan, values: Values): void {
  if (values.yes) return;
  const max = values['max-cost'] === undefined ? 20 : Number(values['max-cost']);
  if (!Number.isFinite(max) || max < 0) throw new VolbenchError('EINVALID_ARGS', `fleet: --max-cost takes dollars, not '${values['max-cost']}'`, { field: '--max-cost', accepted: 'a number of USD, e.g. 20' });
  if (plan.estimatedUsd === undefined) {
    throw new VolbenchError('EINVALID_ARGS', 'fleet: the study\'s cost is unknown (no price for the instance type); pass --yes to go ahead', { field: '--yes', accepted: '--yes' });
  }
  if (plan.estimatedUsd > max) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: the study is estimated at $${plan.estimatedUsd.toFixed(2)}, above --max-cost $${max.toFixed(2)}; pass --yes to go ahead`, {
      field: '--max-cost', accepted: `a limit of at least $${plan.estimatedUsd.toFixed(2)}, or --yes`,
    });
  }
}

async function allowedCidr(values: Values): Promise<string> {
  const given = values['allowed-cidr'];
  if (given) {
    if (!/^(\d{1,3}\.){3}\d{1,3}\/(3[0-2]|[12]?\d)$/.test(given)) throw new VolbenchError('EINVALID_ARGS', `fleet: '${given}' is not an IPv4 CIDR`, { field: '--allowed-cidr', accepted: 'e.g. 203.0.113.7/32' });
    return given;
  }
  try {
    const res = await fetch('https://checkip.amazonaws.com/', { signal: AbortSignal.timeout(3000) });
    const ip = (await res.text()).trim();
    if (/^(\d{1,3}\.){3}\d{1,3}$/.test(ip)) return `${ip}/32`;
  } catch {
    // fall through
  }
  throw new VolbenchError('EINVALID_ARGS', 'fleet: cannot tell this machine\'s public address; give --allowed-cidr', { field: '--allowed-cidr', accepted: 'e.g. 203.0.113.7/32' });
}

/** npm pack of this volbench, into a temporary directory; the caller removes it. */
function packSelf(): { file: string; dir: string } {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'volbench-pack-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const name = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!name) throw new VolbenchError('EINVALID_ARGS', 'fleet: npm pack made no tarball', { field: '--package', accepted: 'an npm pack tarball' });
  return { file: join(dir, name), dir };
}

function progress(io: CommandIo) {
  return (label: string, line: string) => io.stderr.write(`[${label}] ${line}\n`);
}

function readResults(state: FleetState, outDir: string): MemberResult[] {
  return state.members.map((m) => {
    try {
      const result = JSON.parse(readFileSync(join(outDir, state.fleetId, `${m.label}.json`), 'utf8')) as Record<string, unknown>;
      return { label: m.label, status: 'finished' as const, result };
    } catch {
      return { label: m.label, status: 'unreachable' as const, error: 'no result saved' };
    }
  });
}

/** The fleet's results as publish's Markdown tables (`volbench report` on the same files prints the same). */
function fleetReport(state: FleetState, results: readonly MemberResult[]): string {
  return renderMarkdown(buildPublishReport(fleetReportInputs(state, results), { priceVolume: catalogPricer() }));
}

function print(io: CommandIo, values: Values, json: unknown, text: string): void {
  if (values.format === 'json') io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else io.stdout.write(text);
}

/** Up, with SIGINT tearing down what exists; returns the state. */
async function up(plan: FleetPlan, values: Values, clients: FleetClients, stateDir: string, io: CommandIo, signal?: AbortSignal): Promise<FleetState> {
  checkCost(plan, values);
  const bucket = need(values, 'bucket', 'an S3 bucket for results and the package');
  const cidr = await allowedCidr(values);
  let pack: { file: string; dir: string } | undefined;
  const packageFile = values.package ?? (values['package-version'] ? undefined : (pack = packSelf()).file);
  try {
    io.stderr.write(`fleet ${plan.fleetId}: creating ${plan.members.length} instance(s) in ${plan.region} (volbench fleet down ${plan.fleetId} removes them)\n`);
    return await fleetUp(plan, {
      clients, stateDir, bucket, allowedCidr: cidr, packageFile: packageFile ? resolve(packageFile) : undefined,
      packageVersion: values['package-version'], subnetId: values.subnet, vpcId: values.vpc, signal, log: (l) => io.stderr.write(`${l}\n`),
    });
  } finally {
    if (pack) rmSync(pack.dir, { recursive: true, force: true });
  }
}

async function run(state: FleetState, values: Values, clients: FleetClients, signal: AbortSignal, io: CommandIo, planned = false): Promise<MemberResult[]> {
  const outDir = resolve(values.out ?? 'results');
  const jobFile = values.job ? readFileSync(values.job, 'utf8') : undefined;
  return runFleet(state, {
    clients, outDir, signal, onProgress: progress(io), jobFile, assert: values.assert,
    // compare ran the plan it made (auto, suite=); run given --suite replaces every member's.
    ...(values.suite !== undefined && !planned ? { suite: values.suite } : {}),
    ...(values.runtime !== undefined ? { runtime: values.runtime } : {}),
    ...(values['no-precondition'] ? { precondition: false } : {}),
    endpointMap: values['endpoint-map'] ? readEndpointMap(values['endpoint-map']) : undefined,
  });
}

async function down(state: FleetState, clients: FleetClients, stateDir: string, io: CommandIo): Promise<string[]> {
  io.stderr.write(`fleet ${state.fleetId}: deleting\n`);
  const { remaining } = await fleetDown(state, { clients, stateDir, log: (l) => io.stderr.write(`${l}\n`) });
  if (remaining.length) io.stderr.write(`fleet ${state.fleetId}: still there after the teardown: ${remaining.join(', ')}\n`);
  else io.stderr.write(`fleet ${state.fleetId}: nothing of it remains\n`);
  return remaining;
}

/** An AbortSignal that SIGINT fires once; a second SIGINT exits at once. */
function interruptible(io: CommandIo, what: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSigint = () => {
    io.stderr.write(`\ninterrupted: ${what} (Ctrl-C again to leave at once)\n`);
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  };
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onSigint) };
}

export async function fleetCommand(argv: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) {
    io.stdout.write(FLEET_USAGE);
    return 2;
  }
  const { values, positionals } = parse(rest);
  if (values.format !== undefined && values.format !== 'table' && values.format !== 'json') {
    throw new VolbenchError('EINVALID_ARGS', `fleet: --format takes table or json, not '${values.format}'`, { field: '--format', accepted: 'table, json' });
  }
  const stateDir = resolve(values['state-dir'] ?? defaultStateDir());
  const fleetId = () => {
    const id = positionals[0];
    if (!id) throw new VolbenchError('EINVALID_ARGS', `fleet ${sub}: which fleet? give its id (volbench fleet list shows them)`, { field: 'FLEET_ID', accepted: 'a fleet id' });
    return id;
  };
  switch (sub) {
    case 'plan': {
      const plan = planFrom(values);
      print(io, values, plan, formatPlan(plan));
      return 0;
    }
    case 'list': {
      const now = Date.now();
      const fleets = listStates(stateDir).map((s) => {
        const hours = (now - Date.parse(s.createdAt)) / 3.6e6;
        const hourly = fleetUsdPerHour(s.plan.instanceHourly, s.plan.members.map((m) => m.volumeMonthly)).usd;
        return { fleetId: s.fleetId, region: s.region, status: s.status, members: s.members.length, createdAt: s.createdAt, costSoFarUsd: s.status === 'down' ? undefined : Math.round(hours * hourly * 100) / 100 };
      });
      const live = fleets.filter((f) => f.status !== 'down');
      const text = live.length === 0 ? 'no live fleets\n' : live.map((f) =>
        `${f.fleetId}  ${f.region}  ${f.status}  ${f.members} instance(s)  since ${f.createdAt}  ~$${(f.costSoFarUsd ?? 0).toFixed(2)} so far\n`).join('');
      print(io, values, { fleets: live }, text);
      return 0;
    }
    case 'report': {
      const state = await loadState(fleetId(), stateDir);
      const results = readResults(state, resolve(values.out ?? 'results'));
      print(io, values, { fleetId: state.fleetId, results }, fleetReport(state, results));
      return 0;
    }
    default:
      break;
  }
  const awsRegion = sub === 'up' || sub === 'compare' ? region(values) : undefined;
  const existing = sub === 'run' || sub === 'down' ? await loadState(fleetId(), stateDir) : undefined;
  const clients = fleetClients({ region: awsRegion ?? existing!.region, profile: values.profile });
  try {
    switch (sub) {
      case 'up': {
        const stop = interruptible(io, 'tearing the fleet down');
        try {
          const state = await up(planFrom(values), values, clients, stateDir, io, stop.signal);
          print(io, values, state, `${state.fleetId}\n`);
          return 0;
        } finally {
          stop.dispose();
        }
      }
      case 'run': {
        const stop = interruptible(io, 'cancelling the runs');
        try {
          const results = await run(existing!, values, clients, stop.signal, io);
          print(io, values, { fleetId: existing!.fleetId, results: results.map(({ result: _r, ...rest }) => rest) }, fleetReport(existing!, results));
          return results.every((r) => r.status === 'finished' && r.gate !== 'failed') ? 0 : 1;
        } finally {
          stop.dispose();
        }
      }
      case 'down': {
        const remaining = await down(existing!, clients, stateDir, io);
        print(io, values, { fleetId: existing!.fleetId, remaining }, '');
        return remaining.length ? 1 : 0;
      }
      case 'compare': {
        const plan = planFrom(values);
        io.stderr.write(formatPlan(plan));
        const stop = interruptible(io, `tearing fleet ${plan.fleetId} down`);
        let state: FleetState | undefined;
        let results: MemberResult[] = [];
        try {
          state = await up(plan, values, clients, stateDir, io, stop.signal);
          if (!stop.signal.aborted) results = await run(state, values, clients, stop.signal, io, true);
          print(io, values, { fleetId: plan.fleetId, results: results.map(({ result: _r, ...rest }) => rest) }, fleetReport(state, results));
        } finally {
          stop.dispose();
          if (state && !values.keep) await down(state, clients, stateDir, io);
          else if (state) io.stderr.write(`fleet ${state.fleetId} left up (--keep): volbench fleet down ${state.fleetId}\n`);
        }
        if (stop.signal.aborted) return 130;
        return results.length && results.every((r) => r.status === 'finished' && r.gate !== 'failed') ? 0 : 1;
      }
      default:
        throw new VolbenchError('EINVALID_ARGS', `fleet: unknown subcommand '${sub}'`, { accepted: 'plan, up, run, report, down, list, compare' });
    }
  } finally {
    clients.destroy();
  }
}
