#!/usr/bin/env node
// Userspace instructions per I/O, counted by valgrind's callgrind rather than timed, so the
// figure does not depend on what else the machine is doing. Each tool runs the same size-based
// job twice, at 16 MiB and 64 MiB; the difference in instructions divided by the difference in
// I/Os is the cost of one I/O, with start-up and teardown cancelled out.
//
// Two figures per tool: the whole process, and the thread that issues the I/O (volbench's job
// thread; fio's job thread, run with --thread). The whole-process difference of a Node process
// carries the noise of V8's garbage collector and compiler threads (tens of millions of
// instructions from run to run, against a few million for the I/O itself), so the I/O thread
// is the figure that compares engines; the process figure is printed beside it.
//
//   node bench/callgrind.mjs [a|f|l|p|g ...]
//     a: 4k randread QD32 io_uring on /dev/shm   f: a with fixedbufs and registerfiles
//     l: a through libaio                        p: 4k randread psync (QD1)
//     g: null engine
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const file = `/dev/shm/volbench-callgrind-${process.pid}.bin`;

const JOBS = {
  a: ['--name=a', `--filename=${file}`, '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', '--direct=1'],
  f: ['--name=f', `--filename=${file}`, '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=io_uring', '--direct=1', '--fixedbufs', '--registerfiles'],
  l: ['--name=l', `--filename=${file}`, '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=libaio', '--direct=1'],
  p: ['--name=p', `--filename=${file}`, '--rw=randread', '--bs=4k', '--ioengine=psync', '--direct=1'],
  g: ['--name=g', '--rw=randread', '--bs=4k', '--iodepth=32', '--ioengine=null'],
};

// Symbols that only the I/O-issuing thread executes.
const IO_THREAD_SYMBOL = { fio: /td_io_queue|io_u_queued_complete/, volbench: /vb::JobLoop</ };

function instructions(tool, args) {
  const dir = mkdtempSync(join(tmpdir(), 'volbench-callgrind-'));
  const out = join(dir, 'cg.out');
  const cmd = tool === 'fio' ? ['fio', '--thread', ...args] : ['node', cli, 'run', ...args];
  const r = spawnSync(
    'valgrind',
    ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${out}`, ...cmd, '--output-format=json'],
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  try {
    if (r.status !== 0) throw new Error(`${tool} under callgrind failed: ${r.stderr.slice(-2000)}`);
    const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{')));
    const ios = json.jobs.reduce((s, j) => s + j.read.total_ios + j.write.total_ios, 0);
    let total = 0;
    let ioThread = 0;
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), 'utf8');
      const n = Number(/^summary: (\d+)/m.exec(text)?.[1] ?? 0);
      total += n;
      if (IO_THREAD_SYMBOL[tool].test(text)) ioThread += n;
    }
    return { ios, total, ioThread };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function perIo(tool, job) {
  const small = instructions(tool, [...JOBS[job], '--size=16m']);
  const large = instructions(tool, [...JOBS[job], '--size=64m']);
  const ios = large.ios - small.ios;
  return { process: (large.total - small.total) / ios, ioThread: (large.ioThread - small.ioThread) / ios };
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ['a', 'g'];
execFileSync('dd', ['if=/dev/urandom', `of=${file}`, 'bs=1M', 'count=64', 'status=none']);
try {
  process.stdout.write(
    '| job | fio I/O thread | volbench I/O thread | ratio | fio process | volbench process |\n' +
      '| --- | --- | --- | --- | --- | --- |\n',
  );
  for (const job of wanted) {
    const fio = perIo('fio', job);
    const vb = perIo('volbench', job);
    const r = (x) => Math.round(x).toString();
    process.stdout.write(
      `| ${job} | ${r(fio.ioThread)} | ${r(vb.ioThread)} | ${(vb.ioThread / fio.ioThread).toFixed(3)} | ${r(fio.process)} | ${r(vb.process)} |\n`,
    );
  }
} finally {
  rmSync(file, { force: true });
}
