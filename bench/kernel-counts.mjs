// What the kernel does for each I/O of a run, counted rather than timed: `perf stat` on the
// tool's process (all its threads, io_uring's workers included) for system calls, the engine's
// own calls, context switches, wakeups and, on io_uring, the I/Os handed to io-wq workers; and
// the job thread's own context switches from the result's `ctx`. Each figure is divided by the
// run's I/Os. A loaded machine moves these far less than it moves IOPS (a thread that waits
// longer still waits once), so they compare the tools where timings cannot.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

// The system calls each engine makes per I/O (tracepoint names).
const ENGINE_CALLS = {
  io_uring: ['io_uring_enter'],
  libaio: ['io_submit', 'io_getevents'],
  psync: ['pread64', 'pwrite64'],
  sync: ['read', 'write', 'lseek'],
  null: [],
};

const COMMON = ['raw_syscalls:sys_enter', 'context-switches', 'sched:sched_wakeup'];

/** Why perf cannot count here, or undefined when it can. */
export function perfUnavailable() {
  const r = spawnSync('perf', ['stat', '-x,', '-e', COMMON.join(','), 'true'], { encoding: 'utf8' });
  if (r.error) return 'perf is not installed (apt-get install linux-perf)';
  const refused = r.stderr.split('\n').find((l) => l.startsWith('<not'));
  if (r.status !== 0 || refused) return `perf stat cannot count ${COMMON.join(', ')} here (${(refused ?? r.stderr).trim().slice(0, 200)})`;
  return undefined;
}

function engineOf(job) {
  const arg = job.args.find((a) => a.startsWith('--ioengine='));
  return arg ? arg.slice('--ioengine='.length) : 'io_uring';
}

/** One run of [cmd, argv] under perf stat: every counter per I/O, and the raw counts. */
export function countKernel([cmd, argv], job) {
  const engine = engineOf(job);
  const calls = (ENGINE_CALLS[engine] ?? []).map((c) => `syscalls:sys_enter_${c}`);
  const events = [...COMMON, ...calls, ...(engine === 'io_uring' ? ['io_uring:io_uring_queue_async_work'] : [])];
  const dir = mkdtempSync(join(tmpdir(), 'volbench-perf-'));
  const perfOut = join(dir, 'perf.csv');
  try {
    const out = spawnSync('perf', ['stat', '-x,', '-o', perfOut, '-e', events.join(','), '--', cmd, ...argv], {
      encoding: 'utf8', maxBuffer: 64 << 20,
    });
    if (out.status !== 0 && out.status !== 1) throw new Error(`${cmd} under perf stat failed (${out.status}): ${out.stderr.slice(-2000)}`);
    const json = JSON.parse(out.stdout.slice(out.stdout.indexOf('{')));
    const ios = json.jobs.reduce((s, j) => s + j.read.total_ios + j.write.total_ios + j.trim.total_ios, 0);
    const counts = {};
    for (const line of readFileSync(perfOut, 'utf8').split('\n')) {
      const f = line.split(',');
      if (f.length > 3 && /^\d+$/.test(f[0])) counts[f[2]] = Number(f[0]);
    }
    const per = (n) => (ios ? n / ios : 0);
    return {
      ios,
      counts,
      per_io: {
        syscalls: per(counts['raw_syscalls:sys_enter'] ?? 0),
        [`${engine} calls`]: per(calls.reduce((s, c) => s + (counts[c] ?? 0), 0)),
        'context switches': per(counts['context-switches'] ?? 0),
        wakeups: per(counts['sched:sched_wakeup'] ?? 0),
        'job thread ctx': per(json.jobs.reduce((s, j) => s + (j.ctx ?? 0), 0)),
        ...(engine === 'io_uring' ? { 'io-wq handoffs': per(counts['io_uring:io_uring_queue_async_work'] ?? 0) } : {}),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows for lib.mjs's table: one per counter, fio's beside volbench's (one run each: no range). */
export function kernelRows(jobId, k) {
  if (!k?.fio || !k?.volbench) return [];
  // A counter neither tool moved (the null engine's calls) says nothing.
  return Object.keys(k.fio.per_io).filter((m) => k.fio.per_io[m] || k.volbench.per_io[m]).map((metric) => {
    const fio = k.fio.per_io[metric];
    const volbench = k.volbench.per_io[metric] ?? 0;
    return { job: jobId, metric: `${metric}/IO`, fio, volbench, ratio: fio ? volbench / fio : NaN, fioRange: [fio, fio], vbRange: [volbench, volbench] };
  });
}
