/**
 * `volbench fleet plan|up|run|report|down|list|compare`: wiring over src/fleet. Progress goes to
 * stderr as one line per member; `--format json` prints the outcome on stdout for scripts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { VolbenchError } from '../errors.js';
import { awsRegion, fleetUsdPerHour } from '../cloud/index.js';
import { checkCostBasis, checkCostScope } from '../cloud/cost.js';
import {
  bundleArch, checkFleetId, defaultStateDir, deleteStacksNow, expiresAt, extendFleet, fleetClients, fleetDown, fleetNow, fleetReportInputs, fleetUp, fleetVolumes, formatPlan,
  instanceArchitecture, listRemoteStates, listStates, loadState, parseTtl, planFleet, readEndpointMap, ResultFiles, runFleet, secondsLeft,
  type FleetClients, type FleetPlan, type FleetState, type MemberResult,
} from '../fleet/index.js';
import { loadSuite } from '../suites/index.js';
import { VERSION } from '../version.js';
import { interruptible, quietIo, signalStatus } from './fleet-signals.js';
import { reapCommand } from './fleet-reap.js';
import { buildPublishReport, catalogPricer, renderMarkdown } from '../publish/index.js';
import { parseJobFile, parseSpec } from '../jobspec/index.js';
import { timedSeconds } from '../plan/index.js';
import type { CommandIo } from './io.js';

export const FLEET_USAGE = `Usage:
  volbench fleet plan    --volumes V --instance TYPE [--suite S] [--runtime T] [--no-precondition] [--region R]
  volbench fleet up      --volumes V --instance TYPE --bucket B [--allowed-cidr CIDR] [--max-cost USD] [--ttl T] [--yes]
  volbench fleet run     FLEET_ID [--suite S | --job FILE] [--assert EXPR ...] [--endpoint-map FILE] [--out DIR]
  volbench fleet report  FLEET_ID [--out DIR]
  volbench fleet down    FLEET_ID
  volbench fleet list
  volbench fleet compare --volumes V --instance TYPE --bucket B --out DIR [--keep] [... as up and run]
  volbench fleet reap    [--region R] [--bucket B] [--yes]

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
  --bucket B           S3 bucket for results, the fleet's state, the bundle and certificate;
                       run/report/down/list also find a fleet's state there (from any machine)
  --allowed-cidr CIDR  who may reach the services (default this machine's public address /32)
  --package FILE       the bundle for the instance type's architecture (npm run bundle -- --arch
                       x64|arm64; default bundles/volbench-VERSION-linux-ARCH.tar.gz of this volbench)
  --subnet ID          launch in this subnet (default: a default subnet of the default VPC)
  --instance-profile N use this existing instance profile (no IAM rights needed)
  --ttl T              the fleet's life (default: the plan's duration x 2 + 30m); at its end every
                       member shuts itself down and fleet reap deletes what is left; run --ttl T
                       extends a fleet to T from now
  --now TIME           reap and run: the clock, ISO-8601 (for tests; also VOLBENCH_NOW)
  --max-cost USD       refuse a study estimated above this (default 20) unless --yes
  --yes                up, compare: go ahead whatever the estimate; reap: delete what it lists
                       without asking (with no terminal and no --yes, reap deletes nothing)
  --endpoint-map FILE  JSON {label: url}: reach members through a tunnel or VPN
  --out DIR            results/<fleet-id>/<label>.json go here (default results)
  --state-dir DIR      where fleet state files are kept (default ${defaultStateDir()})
  --keep               compare: leave the fleet up (then: volbench fleet down FLEET_ID)
  --cost volume|total  what a month and $ per 1,000 IOPS / per MiB/s cover: the volume (default),
                       or with one instance's share
  --cost-basis 730h|calendar  a month of 730 h (AWS's, default) or this month's real length
  --strict             plan, up, compare: refuse a plan with any finding (instance-baseline,
                       block-size, hdd-on-ssd-suite)
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
  subnet: { type: 'string' },
  'instance-profile': { type: 'string' },
  ttl: { type: 'string' },
  now: { type: 'string' },
  'max-cost': { type: 'string' },
  yes: { type: 'boolean' },
  'endpoint-map': { type: 'string' },
  out: { type: 'string' },
  'state-dir': { type: 'string' },
  keep: { type: 'boolean' },
  strict: { type: 'boolean' },
  cost: { type: 'string' },
  'cost-basis': { type: 'string' },
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
    cost: checkCostScope(values.cost), basis: checkCostBasis(values['cost-basis']),
    ...(values.ttl ? { ttlSec: parseTtl(values.ttl) } : {}),
  });
  if (values.strict) refuseFindings(plan);
  return values.job ? { ...plan, suite: `job file ${values.job}` } : plan;
}

/** --strict: a plan with any finding is not made, naming each. */
function refuseFindings(plan: FleetPlan): void {
  if (plan.findings.length === 0) return;
  const named = plan.findings.map((f) => `${f.kind} (${f.label}): ${f.message}`).join('; ');
  throw new VolbenchError('EINVALID_PLAN', `fleet: --strict and ${plan.findings.length} finding${plan.findings.length > 1 ? 's' : ''}: ${named}`, {
    field: '--strict', accepted: `a plan without findings (${[...new Set(plan.findings.map((f) => f.kind))].join(', ')}), or no --strict`,
  });
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

/** The bundle `npm run bundle -- --arch` wrote for this volbench, when there is one. */
function bundleFile(values: Values, plan: FleetPlan): string {
  if (values.package) return resolve(values.package);
  const arch = bundleArch(instanceArchitecture(plan.instanceType));
  const file = fileURLToPath(new URL(`../../bundles/volbench-${VERSION}-linux-${arch}.tar.gz`, import.meta.url));
  if (existsSync(file)) return file;
  throw new VolbenchError('EINVALID_ARGS', `fleet: the members need the ${arch} bundle: build it with npm run bundle -- --arch ${arch}, or give --package FILE`, {
    field: '--package', accepted: `volbench-VERSION-linux-${arch}.tar.gz`,
  });
}

function progress(io: CommandIo) {
  return (label: string, line: string) => io.stderr.write(`[${label}] ${line}\n`);
}

/** Each member's saved result, read beneath --out without following a link. */
function readResults(state: FleetState, outDir: string): MemberResult[] {
  const files = ResultFiles.open(outDir, state.fleetId, false);
  try {
    return state.members.map((m) => {
      try {
        const text = files?.readResult(m.label);
        if (text !== undefined) return { label: m.label, status: 'finished' as const, result: JSON.parse(text) as Record<string, unknown> };
      } catch {
        // Not JSON: as good as none.
      }
      return { label: m.label, status: 'unreachable' as const, error: 'no result saved' };
    });
  } finally {
    files?.close();
  }
}

/** The fleet's results as publish's Markdown tables (`volbench report` on the same files prints the same). */
function fleetReport(state: FleetState, results: readonly MemberResult[]): string {
  return renderMarkdown(buildPublishReport(fleetReportInputs(state, results), { priceVolume: catalogPricer() }));
}

function print(io: CommandIo, values: Values, json: unknown, text: string): void {
  if (values.format === 'json') io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else io.stdout.write(text);
}

/** Up; `onState` learns the state as soon as it exists (a signal's teardown needs it). */
async function up(plan: FleetPlan, values: Values, clients: FleetClients, stateDir: string, io: CommandIo, signal?: AbortSignal,
  onState?: (state: FleetState) => void): Promise<FleetState> {
  checkCost(plan, values);
  const bucket = need(values, 'bucket', 'an S3 bucket for results, the bundle and the fleet\'s state');
  const cidr = await allowedCidr(values);
  const ttlSec = values.ttl ? parseTtl(values.ttl) : undefined;
  if (ttlSec !== undefined && ttlSec < plan.workloadSeconds) {
    throw new VolbenchError('EINVALID_ARGS', `fleet: --ttl ${values.ttl} is shorter than the study's workload (${Math.ceil(plan.workloadSeconds / 60)} min)`, {
      field: '--ttl', accepted: `at least ${Math.ceil(plan.workloadSeconds / 60)}m`,
    });
  }
  io.stderr.write(`fleet ${plan.fleetId}: creating ${plan.members.length} instance(s) in ${plan.region} (volbench fleet down ${plan.fleetId} removes them)\n`);
  return fleetUp(plan, {
    clients, stateDir, bucket, allowedCidr: cidr, bundleFile: bundleFile(values, plan), subnetId: values.subnet,
    instanceProfile: values['instance-profile'], ttlSec, signal, onState, log: (l) => io.stderr.write(`${l}\n`),
  });
}

/**
 * Refuses a workload longer than the fleet has left to live, unless --ttl (from now) gives it
 * enough: the expiry then moves on everything of the fleet, the members' switch included.
 */
async function checkTimeLeft(state: FleetState, values: Values, clients: FleetClients, stateDir: string, io: CommandIo): Promise<void> {
  if (!state.expiresAt) return;
  const now = fleetNow(values.now);
  const needs = values.job ? jobSeconds(values.job) : suiteSecondsOf(values.suite ?? state.plan.suite, state.plan.workloadSeconds);
  if (values.ttl) {
    const ttl = parseTtl(values.ttl);
    if (needs > ttl) {
      throw new VolbenchError('EINVALID_ARGS', `--ttl ${values.ttl} is shorter than the workload (${Math.ceil(needs / 60)} min)`, { field: '--ttl', accepted: `at least ${Math.ceil(needs / 60)}m` });
    }
    const later = expiresAt(now, ttl);
    if (await extendFleet(state, later, clients, stateDir)) io.stderr.write(`fleet ${state.fleetId}: now expires at ${later}\n`);
  }
  const left = secondsLeft(state.expiresAt, now);
  if (needs > left) {
    throw new VolbenchError('EPREFLIGHT', `fleet ${state.fleetId} expires at ${state.expiresAt} (${Math.max(0, Math.floor(left / 60))} min left), and the workload takes ${Math.ceil(needs / 60)} min: ` +
      'its members would shut down under it; give --ttl to extend it (from now), or run a shorter workload', { field: '--ttl', accepted: `--ttl of at least ${Math.ceil(needs / 60)}m` });
  }
}

function suiteSecondsOf(suite: string, planned: number): number {
  try {
    const s = loadSuite(suite);
    return timedSeconds(parseSpec(s.spec)) * s.loops;
  } catch {
    return planned;
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

/** The fleet's state: this machine's file, else (with --bucket) its copy in S3; clients for its region. */
async function stateAndClients(id: string, values: Values, stateDir: string): Promise<{ state: FleetState; clients: FleetClients }> {
  const local = listStates(stateDir).find((s) => s.fleetId === id);
  if (local) return { state: local, clients: fleetClients({ region: local.region, profile: values.profile }) };
  // Without a bucket there is nowhere else to look: say so before asking for a region.
  if (!values.bucket) await loadState(id, stateDir);
  const finder = fleetClients({ region: region(values), profile: values.profile });
  let state: FleetState;
  try {
    state = await loadState(id, stateDir, finder, values.bucket);
  } catch (err) {
    finder.destroy();
    throw err;
  }
  if (state.region === finder.region) return { state, clients: finder };
  finder.destroy();
  return { state, clients: fleetClients({ region: state.region, profile: values.profile }) };
}

function listed(states: FleetState[]) {
  const now = Date.now();
  return states.map((s) => {
    const hours = (now - Date.parse(s.createdAt)) / 3.6e6;
    const hourly = fleetUsdPerHour(s.plan.instanceHourly, s.plan.members.map((m) => m.volumeMonthly)).usd;
    return { fleetId: s.fleetId, region: s.region, status: s.status, members: s.members.length, createdAt: s.createdAt, expiresAt: s.expiresAt,
      costSoFarUsd: s.status === 'down' ? undefined : Math.round(hours * hourly * 100) / 100 };
  }).filter((f) => f.status !== 'down');
}

/** Up (alone or in compare) with a signal's teardown: DeleteStack for every member at once. */
function upSignals(io: ReturnType<typeof quietIo>, what: string, clients: FleetClients, stateDir: string, current: () => FleetState | undefined) {
  return interruptible(io, what, async () => {
    const state = current();
    if (!state) return;
    const done = await deleteStacksNow(state, clients, stateDir);
    io.stderr.write(`fleet ${state.fleetId}: deletion requested for ${done.requested.length} stack(s)` +
      `${done.failed.length ? `; not for ${done.failed.map((f) => `${f.stack} (${f.reason})`).join(', ')}` : ''}\n`);
  });
}

export async function fleetCommand(argv: string[], outerIo: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) {
    outerIo.stdout.write(FLEET_USAGE);
    return 2;
  }
  const io = quietIo(outerIo);
  const { values, positionals } = parse(rest);
  if (values.format !== undefined && values.format !== 'table' && values.format !== 'json') {
    throw new VolbenchError('EINVALID_ARGS', `fleet: --format takes table or json, not '${values.format}'`, { field: '--format', accepted: 'table, json' });
  }
  const stateDir = resolve(values['state-dir'] ?? defaultStateDir());
  const fleetId = () => {
    const id = positionals[0];
    if (!id) throw new VolbenchError('EINVALID_ARGS', `fleet ${sub}: which fleet? give its id (volbench fleet list shows them)`, { field: 'FLEET_ID', accepted: 'a fleet id' });
    return checkFleetId(id);
  };
  switch (sub) {
    case 'plan': {
      const plan = planFrom(values);
      print(io, values, plan, formatPlan(plan));
      return 0;
    }
    case 'list': {
      let states = listStates(stateDir);
      if (values.bucket) {
        const clients = fleetClients({ region: region(values), profile: values.profile });
        try {
          const mine = new Set(states.map((s) => s.fleetId));
          states = [...states, ...(await listRemoteStates(clients, values.bucket)).filter((s) => !mine.has(s.fleetId))];
        } finally {
          clients.destroy();
        }
      }
      const live = listed(states);
      const text = live.length === 0 ? 'no live fleets\n' : live.map((f) =>
        `${f.fleetId}  ${f.region}  ${f.status}  ${f.members} instance(s)  since ${f.createdAt}${f.expiresAt ? `  expires ${f.expiresAt}` : ''}  ~$${(f.costSoFarUsd ?? 0).toFixed(2)} so far\n`).join('');
      print(io, values, { fleets: live }, text);
      return 0;
    }
    case 'reap':
      return reapCommand(values, io);
    case 'up':
    case 'compare':
      break;
    case 'run':
    case 'down':
    case 'report':
      return existingFleet(sub, fleetId(), values, stateDir, io);
    default:
      throw new VolbenchError('EINVALID_ARGS', `fleet: unknown subcommand '${sub}'`, { accepted: 'plan, up, run, report, down, list, compare, reap' });
  }
  const plan = planFrom(values);
  const clients = fleetClients({ region: plan.region, profile: values.profile });
  let state: FleetState | undefined;
  const stop = upSignals(io, `tearing fleet ${plan.fleetId} down`, clients, stateDir, () => state);
  try {
    if (sub === 'up') {
      try {
        state = await up(plan, values, clients, stateDir, io, stop.signal, (s) => { state = s; });
      } catch (err) {
        // Torn down on a signal: the signal's status, as a shell expects.
        if (stop.received()) return signalStatus(stop.received())!;
        throw err;
      }
      print(io, values, state, `${state.fleetId}\n`);
      return 0;
    }
    io.stderr.write(formatPlan(plan));
    let results: MemberResult[] = [];
    try {
      state = await up(plan, values, clients, stateDir, io, stop.signal, (s) => { state = s; });
      if (!stop.signal.aborted) {
        results = await run(state, values, clients, stop.signal, io, true);
      }
      print(io, values, { fleetId: plan.fleetId, results: results.map(({ result: _r, ...rest }) => rest) }, fleetReport(state, results));
    } finally {
      if (state && (!values.keep || stop.received())) await down(state, clients, stateDir, io);
      else if (state) io.stderr.write(`fleet ${state.fleetId} left up (--keep): volbench fleet down ${state.fleetId}\n`);
    }
    if (stop.received()) return signalStatus(stop.received())!;
    return results.length && results.every((r) => r.status === 'finished' && r.gate !== 'failed') ? 0 : 1;
  } finally {
    stop.dispose();
    clients.destroy();
  }
}

/** run, down and report: a fleet that exists, found here or (with --bucket) in S3. */
async function existingFleet(sub: 'run' | 'down' | 'report', id: string, values: Values, stateDir: string, io: ReturnType<typeof quietIo>): Promise<number> {
  const { state, clients } = await stateAndClients(id, values, stateDir);
  try {
    if (sub === 'report') {
      const results = readResults(state, resolve(values.out ?? 'results'));
      print(io, values, { fleetId: state.fleetId, results }, fleetReport(state, results));
      return 0;
    }
    if (sub === 'down') {
      const stop = upSignals(io, `deleting fleet ${state.fleetId}`, clients, stateDir, () => state);
      try {
        const remaining = await down(state, clients, stateDir, io);
        print(io, values, { fleetId: state.fleetId, remaining }, '');
        return remaining.length ? 1 : 0;
      } finally {
        stop.dispose();
      }
    }
    const stop = interruptible(io, 'cancelling the runs');
    try {
      await checkTimeLeft(state, values, clients, stateDir, io);
      const results = await run(state, values, clients, stop.signal, io);
      print(io, values, { fleetId: state.fleetId, results: results.map(({ result: _r, ...rest }) => rest) }, fleetReport(state, results));
      if (stop.received()) return signalStatus(stop.received())!;
      return results.every((r) => r.status === 'finished' && r.gate !== 'failed') ? 0 : 1;
    } finally {
      stop.dispose();
    }
  } finally {
    clients.destroy();
  }
}
