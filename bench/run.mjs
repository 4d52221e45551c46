#!/usr/bin/env node
// Side-by-side runs of fio and volbench on identical jobs and targets.
//
//   npm run bench -- [--quick] [--rounds N] [--runtime S] [job-id-prefix ...]
//
// Each run is a fresh process. Rounds alternate the order (fio first, then volbench first: ABBA),
// so drift on the machine falls on both tools alike. Prints medians, ratios (volbench / fio) and
// min–max per metric, and writes every raw figure to bench/results/<time>.json.
//
// Then, for each job, one more run of each tool under `perf stat` (when perf and the kernel's
// tracepoints are there): system calls, the engine's own calls, context switches and wakeups per
// I/O, counts that a loaded machine moves far less than it moves time. Not timed: counting every
// system call costs both tools a little.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { JOBS } from './jobs.mjs';
import { countKernel, kernelRows, perfUnavailable } from './kernel-counts.mjs';
import { deviceNumbers, machineInfo, median, parseArgs, table } from './lib.mjs';
import { diskIrqCpu, makeTargets } from './targets.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');

function metrics(result) {
  const perDir = (dir) => result.jobs.reduce((s, j) => s + (j[dir]?.iops ?? 0), 0);
  let ios = 0;
  let bytes = 0;
  let clatWeighted = 0;
  let p99 = 0;
  let cpuMs = 0;
  let runtimeMs = 0;
  for (const job of result.jobs) {
    for (const dir of ['read', 'write', 'trim']) {
      const d = job[dir];
      if (!d || d.total_ios === 0) continue;
      ios += d.iops;
      bytes += d.bw_bytes;
      clatWeighted += d.clat_ns.mean * d.total_ios;
      p99 = Math.max(p99, d.clat_ns.percentile?.['99.000000'] ?? 0);
      runtimeMs = Math.max(runtimeMs, d.runtime);
    }
    cpuMs += ((job.usr_cpu + job.sys_cpu) / 100) * job.job_runtime;
  }
  const totalIos = result.jobs.reduce((s, j) => s + j.read.total_ios + j.write.total_ios + j.trim.total_ios, 0);
  return {
    iops: ios,
    read_iops: perDir('read'),
    write_iops: perDir('write'),
    bw_MiBps: bytes / 1048576,
    clat_mean_us: totalIos ? clatWeighted / totalIos / 1000 : 0,
    clat_p99_us: p99 / 1000,
    cpu_ns_per_io: totalIos ? (cpuMs * 1e6) / totalIos : 0,
    runtime_ms: runtimeMs,
  };
}

// Requests and sectors the block device under `path` has completed (reads + writes), from
// /proc/diskstats: the line whose major:minor is the filesystem's device (a partition has its own).
function diskCounters(path) {
  const { major, minor } = deviceNumbers(path);
  for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (Number(f[0]) === major && Number(f[1]) === minor) {
      return { requests: Number(f[3]) + Number(f[7]), sectors: Number(f[5]) + Number(f[9]) };
    }
  }
  return undefined;
}

function dropCaches() {
  try {
    execFileSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' });
  } catch {
    // Not root: buffered jobs then see a warm cache; the harness says so in the results.
  }
}

/** The command line that runs `job` under `tool`: [command, arguments]. */
function commandFor(tool, job, targets, runtime) {
  const args = job.args
    .filter((a) => !a.includes('{irqcpu}') || targets.irqCpu !== undefined)
    .map((a) => a.replace('{file}', targets.shm).replace('{loop}', targets.loop).replace('{disk}', targets.disk)
      .replace('{irqcpu}', String(targets.irqCpu)));
  args.push(`--runtime=${runtime}`, '--output-format=json');
  return tool === 'fio' ? ['fio', args] : ['node', [cli, 'run', ...args, ...(job.writesBlockDevice ? ['--allow_block_write'] : [])]];
}

function runOnce(tool, job, targets, runtime) {
  if (job.buffered) dropCaches();
  const [cmd, argv] = commandFor(tool, job, targets, runtime);
  const before = job.disk ? diskCounters(targets.disk) : undefined;
  const out = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const after = job.disk ? diskCounters(targets.disk) : undefined;
  if (out.status !== 0 && out.status !== 1) throw new Error(`${tool} ${job.id} failed (${out.status}): ${out.stderr}`);
  const json = JSON.parse(out.stdout.slice(out.stdout.indexOf('{')));
  const errors = json.jobs.filter((j) => j.error !== 0);
  if (errors.length) throw new Error(`${tool} ${job.id}: job error ${errors[0].error}`);
  const m = metrics(json);
  if (before && after && after.requests > before.requests) {
    // The average request the disk completed: smaller than bs where the kernel split I/Os,
    // larger where it merged them.
    m.disk_KiB_per_req = ((after.sectors - before.sectors) * 512) / 1024 / (after.requests - before.requests);
  }
  return m;
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg has them: how busy the machine was. */
function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

const loadBefore = loadAverage();
const opts = parseArgs(process.argv.slice(2));
const rounds = opts.rounds ?? (opts.quick ? 2 : 6);
const runtime = opts.runtime ?? (opts.quick ? 3 : 10);
// Pacing jobs only when named: they measure waiting, not speed, and take as long as the rest.
const selected = JOBS.filter((j) => (opts.jobs.length === 0 ? !j.pacing : opts.jobs.some((p) => j.id.startsWith(p))));
const targets = makeTargets(new Set(selected.map((j) => j.target)));
if (targets.disk) targets.irqCpu = diskIrqCpu(targets.disk);
const raw = {};
const kernel = {};
const noPerf = perfUnavailable();
try {
  for (const job of selected) {
    raw[job.id] = { fio: [], volbench: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['fio', 'volbench'] : ['volbench', 'fio'];
      for (const tool of order) {
        const m = runOnce(tool, job, targets, runtime);
        raw[job.id][tool].push(m);
        process.stderr.write(`${job.id} round ${r + 1}/${rounds} ${tool}: ${Math.round(m.iops)} IOPS, clat ${m.clat_mean_us.toFixed(1)} us\n`);
      }
    }
    if (noPerf) continue;
    kernel[job.id] = {};
    for (const tool of ['fio', 'volbench']) {
      if (job.buffered) dropCaches();
      kernel[job.id][tool] = countKernel(commandFor(tool, job, targets, runtime), job);
    }
  }
} finally {
  targets.cleanup();
}

const rows = [];
for (const job of selected) {
  const { fio, volbench } = raw[job.id];
  const keys = job.pacing ? ['read_iops', 'write_iops'].filter((k) => volbench.some((m) => m[k] > 0))
    : job.latency ? ['iops', 'clat_mean_us', 'clat_p99_us', 'cpu_ns_per_io'] : ['iops', 'bw_MiBps', 'clat_mean_us', 'cpu_ns_per_io'];
  if (job.disk) keys.push('disk_KiB_per_req');
  for (const key of keys) {
    const f = fio.map((m) => m[key]).filter((x) => x !== undefined);
    const v = volbench.map((m) => m[key]).filter((x) => x !== undefined);
    if (!f.length || !v.length) continue;
    rows.push({ job: job.id, metric: key, fio: median(f), volbench: median(v), ratio: median(v) / median(f), fioRange: [Math.min(...f), Math.max(...f)], vbRange: [Math.min(...v), Math.max(...v)] });
  }
}
process.stdout.write(table(rows));
if (noPerf) {
  process.stdout.write(`\nNo system-call or wakeup counts: ${noPerf}\n`);
} else {
  process.stdout.write('\nPer I/O, one counted run of each tool (perf stat; the job thread\'s context switches from the JSON\'s ctx):\n\n');
  process.stdout.write(table(selected.flatMap((job) => kernelRows(job.id, kernel[job.id]))));
}
const machine = machineInfo();
process.stdout.write(`\n${machine.cpu}, ${machine.cores} cores, kernel ${machine.kernel}, ${machine.fio}, node ${machine.node}; ${rounds} rounds × ${runtime} s, ABBA order\n`);
if (selected.some((j) => j.args.some((a) => a.includes('{irqcpu}')))) {
  process.stdout.write(targets.irqCpu === undefined ? 'QD1 jobs unpinned: the disk\'s interrupt CPU could not be told\n'
    : `QD1 jobs pinned to CPU ${targets.irqCpu}, which takes the disk's interrupts (cpus_allowed)\n`);
}
const dir = join(root, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
const load = loadAverage();
process.stdout.write(`load average before the run ${loadBefore}, after it ${load}\n`);
writeFileSync(file, JSON.stringify({ machine, rounds, runtime, irqCpu: targets.irqCpu ?? null, load: { before: loadBefore, after: load }, rows, raw, kernel }, null, 2));
process.stdout.write(`raw results: ${file}\n`);
