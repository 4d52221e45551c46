// A fleet member's instance, played on this host: its user data, as rendered, runs unchanged as
// root in a sandbox with its own root (an overlay of the host's, host paths hidden), mount, PID,
// UTS and IPC namespaces, its emulated volumes as /dev/nvme*n1, and a network of its own where
// 169.254.169.254 answers as IMDSv2 and only the emulated AWS endpoint is reachable. Stand-ins
// (standins/) play dnf, systemd, shutdown, nvme id-ctrl; the AWS CLI is the real one.
//
//   const member = await startMember({ id: 'gp3', dir, userData, identity, aws, devices, group });
//   const boot = await member.booted;            // { exitCode, seconds }
//   await fetch(`https://${member.address}:8443/...`)  // what it serves, from the host
//   await member.stop();
//
// The changes to its environment are AWS_ENDPOINT_URL (to the stand-in in front of moto) and,
// where its volumes publish their EBS statistics, VOLBENCH_EMULATED_NVME_DIR (the test seam, at
// the directory bound read-only into it), given to the user data and to every unit it starts;
// `log` is told so.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { closeEmulatedNvmeDir, EMULATED_NVME_ENV, openEmulatedNvmeDir } from '../../../src/device/emulated-nvme.js';
import type { BlkioGroup } from '../blkio.js';
import { startImds, type Imds, type ImdsIdentity } from './imds.js';
import { createMemberNetwork, IMDS_ADDRESS, type MemberNetwork } from './network.js';
import type { Listener, SignalStandIn } from './signal-standin.js';

export interface MemberDevice {
  /** As the member sees it: nvme1n1 is /dev/nvme1n1. */
  name: string;
  /** The host's block device (a loop device). */
  path: string;
  /** What `nvme id-ctrl` answers: the EBS volume id without its dash. */
  serial: string;
  model?: string;
}
export interface MemberOptions {
  id: string;
  dir: string;
  userData: string;
  identity: ImdsIdentity;
  aws: SignalStandIn;
  devices?: MemberDevice[];
  group?: BlkioGroup;
  dnfFailure?: string;
  timeFactor?: number;
  binds?: { from: string; to: string; readOnly?: boolean }[];
  /**
   * A host directory where the member's volumes publish their EBS statistics pages (MAJ:MIN.page):
   * bound read-only at MEMBER_NVME_DIR and named by VOLBENCH_EMULATED_NVME_DIR. It must pass the
   * seam's own check (this user's, written by no one else, nor any parent).
   */
  emulatedNvmeDir?: string;
  hide?: string[];
  upperBytes?: number;
  awscliVenv?: string;
  log?: (line: string) => void;
}
/** The options with their defaults, and the hostname its network gives it. */
interface Settings extends MemberOptions { awscliVenv: string; devices: MemberDevice[]; hostname?: string }
export interface MemberEnd { code: number | null; signal: NodeJS.Signals | null; stderr: string; shutdown: boolean }
export interface MemberBoot { exitCode: number; seconds: number }
export interface ExecResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
/** What startMember made, handed to the Member. */
interface MemberParts {
  id: string;
  net: MemberNetwork;
  pid: number;
  child: ChildProcess;
  ended: Promise<MemberEnd>;
  booted: Promise<MemberBoot>;
  rehearsal: string;
  ctl: string;
  env: Record<string, string>;
  imds: Imds;
  endpoint: Listener;
  group: BlkioGroup | undefined;
  cleanUp: () => Promise<void>;
  startedWallMs: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const GiB = 1024 ** 3;
/** Where a member sees its volumes' EBS statistics pages: a root-owned path, as the seam requires. */
export const MEMBER_NVME_DIR = '/run/volbench-emulated-nvme';
/** Host paths a member does not see: homes, this host's tools and work, its /opt and /usr/local. */
export const DEFAULT_HIDE: string[] = ['/root', '/home', '/work', '/srv', '/opt', '/mnt', '/media', '/var/tmp', '/usr/local'];
export const DEFAULT_AWSCLI_VENV: string = process.env.VOLBENCH_AWSCLI_VENV ?? '/opt/volbench-rehearsal-awscli';
const STANDINS: Record<string, string[]> = {
  init: [],
  dnf: ['/usr/bin/dnf', '/usr/bin/yum'],
  systemctl: ['/usr/bin/systemctl'],
  shutdown: ['/usr/sbin/shutdown', '/usr/sbin/poweroff', '/usr/sbin/halt', '/usr/sbin/reboot'],
  nvme: ['/usr/sbin/nvme'],
  aws: ['/usr/bin/aws'],
};
/** Logs copied out of a member when it stops, each at most this long. */
const MAX_LOG_BYTES = 1 << 20;

function check(options: MemberOptions): void {
  const { id, userData, identity, devices } = options;
  if (!/^[a-z0-9][a-z0-9-]{0,19}$/.test(id ?? '')) throw new TypeError(`id: lower-case letters, digits, dashes (1-20), not '${id}'`);
  if (typeof userData !== 'string' || !userData.startsWith('#!')) throw new TypeError('userData: the script text, starting with #!');
  for (const key of ['instanceId', 'instanceType', 'region', 'availabilityZone'] as const) {
    if (typeof identity?.[key] !== 'string') throw new TypeError(`identity.${key}: a string`);
  }
  for (const [i, d] of (devices ?? []).entries()) {
    if (!/^nvme[0-9]+n1$/.test(d.name ?? '')) throw new TypeError(`devices[${i}].name: nvmeNn1, not '${d.name}'`);
    if (!/^\/dev\/[a-z0-9]+$/.test(d.path ?? '')) throw new TypeError(`devices[${i}].path: a /dev/ block device`);
    if (!/^[A-Za-z0-9-]{1,20}$/.test(d.serial ?? '')) throw new TypeError(`devices[${i}].serial: up to 20 letters and digits (vol0123...)`);
  }
  if (options.emulatedNvmeDir !== undefined) {
    // Checked here as the member's volbench will check it (the member is this user, and sees the
    // same owner and modes): a directory it would refuse fails the start, not each run's statistics.
    const seam = openEmulatedNvmeDir({ [EMULATED_NVME_ENV]: options.emulatedNvmeDir });
    if (seam && 'refused' in seam) throw new TypeError(`emulatedNvmeDir: ${seam.refused}`);
    if (seam) closeEmulatedNvmeDir(seam.dir);
  }
}

/** The control directory enter.sh reads: mounts.conf, and /.rehearsal's files. */
function writeControl(ctl: string, o: Settings, env: Record<string, string>): string {
  const rehearsal = join(ctl, 'rehearsal');
  mkdirSync(join(rehearsal, 'bin'), { recursive: true });
  mkdirSync(join(rehearsal, 'records'), { recursive: true });
  for (const name of Object.keys(STANDINS)) copyFileSync(join(HERE, 'standins', name), join(rehearsal, 'bin', name));
  writeFileSync(join(rehearsal, 'user-data'), o.userData, { mode: 0o700 });
  writeFileSync(join(rehearsal, 'env'), Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join(''));
  writeFileSync(join(rehearsal, 'nvme.conf'), o.devices.map((d) => `/dev/${d.name} ${d.serial} ${d.model ?? 'Amazon Elastic Block Store'}\n`).join(''));
  writeFileSync(join(rehearsal, 'dnf.fail'), o.dnfFailure ?? '');
  writeFileSync(join(rehearsal, 'time-factor'), `${o.timeFactor ?? 1}\n`);
  writeFileSync(join(rehearsal, 'awscli-venv'), `${o.awscliVenv}\n`);
  const lines = [`upper ${o.upperBytes ?? 2 * GiB}`, `hostname ${o.hostname}`];
  for (const dir of o.hide ?? DEFAULT_HIDE) lines.push(`hide ${dir}`);
  const seam = o.emulatedNvmeDir ? [{ from: o.emulatedNvmeDir, to: MEMBER_NVME_DIR, readOnly: true }] : [];
  for (const b of [{ from: o.awscliVenv, to: o.awscliVenv, readOnly: true }, ...seam, ...(o.binds ?? [])]) {
    if (/\s/.test(b.from + b.to)) throw new TypeError(`binds: paths without spaces, not '${b.from}' -> '${b.to}'`);
    lines.push(`bind ${b.from} ${b.to} ${b.readOnly === false ? 'rw' : 'ro'}`);
  }
  for (const d of o.devices) lines.push(`device ${d.name} ${d.path}`);
  for (const [name, paths] of Object.entries(STANDINS)) if (paths.length) lines.push(`standin ${name} ${paths.join(' ')}`);
  writeFileSync(join(ctl, 'mounts.conf'), `${lines.join('\n')}\n`);
  return rehearsal;
}

const readLines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** The pid of the member's init: the one child of the unshare process. */
async function initPid(unsharePid: number, deadlineMs: number): Promise<number | undefined> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    try {
      const kids = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      if (kids.length) return Number(kids[0]);
    } catch {
      return undefined;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/**
 * Starts a member. Options: id, dir (a rehearsal directory), userData (script text), identity
 * ({ instanceId, instanceType, region, availabilityZone, imageId?, roleName?, architecture? }),
 * aws (a SignalStandIn), devices ([{ name: 'nvme1n1', path: '/dev/loopN', serial, model? }]),
 * group (a BlkioGroup for its processes), dnfFailure (a message: dnf fails with it), timeFactor
 * (for `shutdown +M`), binds ([{ from, to, readOnly }]), emulatedNvmeDir (the volumes' EBS
 * statistics pages), hide (host paths to hide), upperBytes, awscliVenv, log (line => void).
 */
export async function startMember(options: MemberOptions): Promise<Member> {
  check(options);
  const started = performance.now();
  const startedWallMs = Date.now();
  const o: Settings = { awscliVenv: DEFAULT_AWSCLI_VENV, devices: [], ...options };
  if (!existsSync(join(o.awscliVenv, 'bin', 'aws'))) throw new Error(`${o.awscliVenv}/bin/aws is missing: run tests/harness/install-awscli.sh`);
  const log = o.log ?? (() => {});
  const ctl = join(o.dir, 'members', o.id);
  mkdirSync(ctl, { recursive: true });
  const net = createMemberNetwork(`volbench-rehearsal-${process.pid}-${o.id}`);
  const cleanups: (() => void | Promise<void>)[] = [() => net.close()];
  const cleanUp = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  try {
    const imds = await startImds({ host: net.hostAddress, identity: { privateIp: net.memberAddress, ...o.identity }, userData: o.userData });
    cleanups.push(() => imds.close());
    const endpoint = await o.aws.listen(net.hostAddress, { member: o.id });
    cleanups.push(() => endpoint.close());
    net.allow(imds.port, [endpoint.port]);
    const env: Record<string, string> = { AWS_ENDPOINT_URL: endpoint.url, ...(o.emulatedNvmeDir ? { [EMULATED_NVME_ENV]: MEMBER_NVME_DIR } : {}) };
    const seamNote = o.emulatedNvmeDir ? `, ${EMULATED_NVME_ENV}=${MEMBER_NVME_DIR} (its volumes' EBS statistics pages, ${o.emulatedNvmeDir} read-only)` : '';
    log(`member ${o.id}: the changes to its environment: AWS_ENDPOINT_URL=${endpoint.url} (moto behind the SignalResource stand-in)${seamNote}; IMDS at ${IMDS_ADDRESS} answers from ${imds.url}`);
    o.hostname = `ip-${net.memberAddress.replace(/\./g, '-')}.ec2.internal`;
    const rehearsal = writeControl(ctl, o, env);
    const args = ['--net=' + net.nsPath, 'unshare', '--mount', '--uts', '--ipc', '--pid', '--fork', '--kill-child', '--propagation', 'private',
      '/bin/bash', join(HERE, 'enter.sh'), ctl];
    const spawnOptions: SpawnOptions = { stdio: ['ignore', 'ignore', 'pipe'] };
    const child = o.group ? o.group.spawn('nsenter', args, spawnOptions) : spawn('nsenter', args, spawnOptions);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-8000)));
    const ended = new Promise<MemberEnd>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr, shutdown: readLines(join(rehearsal, 'records', 'shutdown.log')).length > 0 })));
    const pid = await initPid(child.pid!, 10_000);
    if (pid === undefined) throw new Error(`member ${o.id} did not start: ${stderr}`);
    const booted = waitForBoot(rehearsal, ended, started);
    const member = new Member({ id: o.id, net, pid, child, ended, booted, rehearsal, ctl, env, imds, endpoint, group: o.group, cleanUp, startedWallMs });
    booted.then((b) => log(`member ${o.id}: user data exited ${b.exitCode} after ${b.seconds.toFixed(1)} s`), () => {});
    return member;
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** Resolves when the user data has exited (its code, seconds since start), or rejects when the member ended first. */
function waitForBoot(rehearsal: string, ended: Promise<MemberEnd>, started: number): Promise<MemberBoot> {
  const file = join(rehearsal, 'records', 'user-data.exit');
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setInterval(() => {
      if (!existsSync(file)) return;
      const text = readFileSync(file, 'utf8').trim();
      if (!text) return;
      done = true;
      clearInterval(timer);
      resolve({ exitCode: Number(text), seconds: (performance.now() - started) / 1000 });
    }, 100);
    ended.then((e) => {
      if (done) return;
      clearInterval(timer);
      if (existsSync(file)) resolve({ exitCode: Number(readFileSync(file, 'utf8').trim()), seconds: (performance.now() - started) / 1000 });
      else reject(new Error(`the member ended before its user data did (${e.code ?? e.signal}): ${e.stderr}`));
    });
  });
}

export class Member {
  readonly id: string;
  readonly net: MemberNetwork;
  /** The host pid of its init. */
  readonly pid: number;
  readonly child: ChildProcess;
  readonly ended: Promise<MemberEnd>;
  readonly booted: Promise<MemberBoot>;
  /** Its control directory's /.rehearsal (stand-ins' records), and the control directory. */
  readonly rehearsal: string;
  readonly ctl: string;
  /** The changes to its environment (AWS_ENDPOINT_URL, and the statistics seam where given). */
  readonly env: Record<string, string>;
  readonly imds: Imds;
  readonly endpoint: Listener;
  readonly group: BlkioGroup | undefined;
  private readonly cleanUp: () => Promise<void>;
  private readonly startedWallMs: number;
  private stopped = false;
  /** The member's address (the host reaches its services there) and the host's end of its link. */
  readonly address: string;
  readonly hostAddress: string;
  readonly awsEndpoint: string;

  constructor(parts: MemberParts) {
    ({ id: this.id, net: this.net, pid: this.pid, child: this.child, ended: this.ended, booted: this.booted, rehearsal: this.rehearsal, ctl: this.ctl,
      env: this.env, imds: this.imds, endpoint: this.endpoint, group: this.group, cleanUp: this.cleanUp, startedWallMs: this.startedWallMs } = parts);
    this.address = parts.net.memberAddress;
    this.hostAddress = parts.net.hostAddress;
    this.awsEndpoint = parts.endpoint.url;
  }

  /**
   * Seconds from startMember() to the sandbox running the user data (its root, network and
   * servers built) and to the user data's exit, from init's records (undefined until then).
   */
  timings(): { sandboxReadyS: number | undefined; userDataExitS: number | undefined } {
    const at = (what: string) => {
      const line = this.records().init.find((l) => l.includes(what));
      return line ? (Date.parse(line.split(' ')[0]) - this.startedWallMs) / 1000 : undefined;
    };
    return { sandboxReadyS: at('user data starts'), userDataExitS: at('user data exited') };
  }

  /** What the stand-ins recorded: one array of lines each. */
  records(): { dnf: string[]; systemctl: string[]; shutdown: string[]; init: string[] } {
    const r = (name: string) => readLines(join(this.rehearsal, 'records', `${name}.log`));
    return { dnf: r('dnf'), systemctl: r('systemctl'), shutdown: r('shutdown'), init: r('init') };
  }

  /**
   * A file of the running member, by its path inside (through /proc/PID/root), at most 1 MiB of it;
   * undefined when it does not exist or the member has ended.
   */
  readFile(path: string): string | undefined {
    if (!path.startsWith('/') || path.split('/').includes('..')) throw new TypeError(`path: absolute, without '..', not '${path}'`);
    let fd: number;
    try {
      fd = openSync(`/proc/${this.pid}/root${path}`, 'r');
    } catch {
      return undefined;
    }
    try {
      if (!fstatSync(fd).isFile()) return undefined;
      const buf = Buffer.alloc(MAX_LOG_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  }

  /** Runs a command inside the member (all its namespaces, its root, its blkio group). */
  exec(cmd: string, args: string[] = [], { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<ExecResult> {
    const nsenter = ['--target', String(this.pid), '--mount', '--uts', '--ipc', '--net', '--pid', '--root', '--wd', cmd, ...args];
    const options: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'] };
    const child = this.group ? this.group.spawn('nsenter', nsenter, options) : spawn('nsenter', nsenter, options);
    return new Promise((resolve) => {
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  /** Copies the member's logs out (records/logs/), ends it if it still runs, and removes its network. */
  async stop(): Promise<MemberEnd> {
    if (this.stopped) return this.ended;
    this.stopped = true;
    this.saveLogs();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    const end = await this.ended;
    await this.cleanUp();
    return end;
  }

  saveLogs(): void {
    const out = join(this.rehearsal, 'records', 'logs');
    mkdirSync(out, { recursive: true });
    let names: string[] = [];
    try {
      names = readdirSync(`/proc/${this.pid}/root/var/log`).filter((n) => n.endsWith('.log'));
    } catch {
      return;
    }
    for (const name of names) {
      const text = this.readFile(`/var/log/${name}`);
      if (text !== undefined) writeFileSync(join(out, name), text);
    }
  }
}
