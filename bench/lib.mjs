// Small helpers of the benchmark scripts.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { cpus, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(REPO, 'dist', 'cli', 'main.js');

export function parseArgs(argv) {
  const opts = { jobs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--runtime') opts.runtime = Number(argv[++i]);
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}; flags: --quick, --rounds N, --runtime S`);
    else opts.jobs.push(a);
  }
  return opts;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The p-th percentile (nearest rank) of ascending values; NaN when there are none. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * The process the service runs in: serve's one child (serve runs the service in a child of its
 * own), or serve itself in a version that does not.
 */
function serviceProcess(pid) {
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return kids.length === 1 ? Number(kids[0]) : pid;
}

/**
 * `volbench serve ARGS` as a child process (its --port 0 picks a free port), with the token in
 * VOLBENCH_TOKEN; resolves once it listens, with its URL, `pid` (the service's process, whose
 * memory and CPU the benchmarks read), `child` (serve, to signal) and `exited` (a promise of
 * serve's exit), or rejects when it exits first or takes longer than 30 s.
 */
export function spawnServe(args, token) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    env: { ...process.env, VOLBENCH_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within 30 s: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /serving on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], pid: serviceProcess(child.pid), child, exited, stderr: () => stderr });
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

/**
 * One request with node:http (far cheaper per request than fetch, so the client skews less);
 * resolves with the status, headers and body text, rejects on a transport error.
 */
export function httpCall(url, { agent, method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TICK_MS = 10; // USER_HZ is 100 on every Linux architecture Node runs on

/** CPU time (user + system, ms) of one thread; the main thread's tid is the process id. */
export function threadCpuMs(pid, tid = pid) {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Resident memory of a process in KiB (VmRSS), or null once it has gone. */
export function vmRssKb(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function fmt(v) {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  if (Math.abs(v) >= 1 || v === 0) return v.toFixed(2);
  if (Math.abs(v) < 0.001) return v.toExponential(1);
  return v.toFixed(3);
}

export function table(rows) {
  const head = ['job', 'metric', 'fio median', 'volbench median', 'ratio', 'fio min–max', 'volbench min–max'];
  const body = rows.map((r) => [
    r.job, r.metric, fmt(r.fio), fmt(r.volbench), r.ratio.toFixed(3),
    `${fmt(r.fioRange[0])}–${fmt(r.fioRange[1])}`, `${fmt(r.vbRange[0])}–${fmt(r.vbRange[1])}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |\n`;
  return line(head) + line(widths.map((w) => '-'.repeat(w))) + body.map(line).join('');
}

export function machineInfo() {
  let fio = 'fio not installed';
  try {
    fio = execFileSync('fio', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // reported as missing
  }
  return { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, kernel: release(), fio, node: process.version };
}

// The block device number of the filesystem holding `path`, as /proc/diskstats and
// /sys/dev/block name it (glibc's major()/minor() on st_dev).
export function deviceNumbers(path) {
  const { dev } = statSync(path);
  return {
    major: Math.floor(dev / 256) & 0xfff,
    minor: (dev & 0xff) | ((Math.floor(dev / 1048576) & 0xfff) << 8),
  };
}
