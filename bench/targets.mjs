// Benchmark targets, made once per harness run and shared by both tools: a file in /dev/shm,
// a loop device over a tmpfs file, and a file on the real disk. Files are written with random
// data first, so reads return real blocks and neither tool lays anything out during a run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { deviceNumbers } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const GiB = 1024 * 1024 * 1024;

function fill(path, bytes) {
  if (existsSync(path)) return;
  execFileSync('dd', ['if=/dev/urandom', `of=${path}`, 'bs=1M', `count=${bytes / 1048576}`, 'status=none', 'conv=fsync']);
}

export function makeTargets(kinds) {
  const made = [];
  const t = { shm: '', loop: '', disk: '' };
  if (kinds.has('shm') || kinds.has('loop')) {
    t.shm = `/dev/shm/volbench-bench-${process.pid}.bin`;
    fill(t.shm, GiB);
    made.push(() => rmSync(t.shm, { force: true }));
  }
  if (kinds.has('loop')) {
    const backing = `/dev/shm/volbench-bench-loop-${process.pid}.img`;
    fill(backing, GiB);
    made.push(() => rmSync(backing, { force: true }));
    t.loop = execFileSync('losetup', ['-f', '--show', '--direct-io=on', backing], { encoding: 'utf8' }).trim();
    made.push(() => execFileSync('losetup', ['-d', t.loop]));
  }
  if (kinds.has('disk')) {
    const dir = join(root, 'bench', '.data');
    mkdirSync(dir, { recursive: true });
    t.disk = join(dir, `disk-${process.pid}.bin`);
    fill(t.disk, GiB);
    made.push(() => rmSync(t.disk, { force: true }));
  }
  t.cleanup = () => {
    for (const undo of made.reverse()) {
      try {
        undo();
      } catch (err) {
        process.stderr.write(`cleanup: ${err.message}\n`);
      }
    }
  };
  return t;
}

// The CPU that takes most of the interrupts of the disk holding `path` (from /proc/interrupts,
// by the name of the disk's device: virtioN for virtio-blk, nvmeN for NVMe), or undefined when
// it cannot be told. A QD1 job's latency depends on whether its thread runs there, so the QD1
// jobs pin both tools to it.
export function diskIrqCpu(path) {
  try {
    const { major, minor } = deviceNumbers(path);
    let sys = realpathSync(`/sys/dev/block/${major}:${minor}`);
    if (existsSync(join(sys, 'partition'))) sys = dirname(sys);
    const device = realpathSync(join(sys, 'device'));
    const name = device.split('/').reverse().find((part) => /^(virtio|nvme)\d+$/.test(part));
    if (!name) return undefined;
    const [header, ...lines] = readFileSync('/proc/interrupts', 'utf8').split('\n');
    // One column per online CPU, named in the header (CPU0 CPU2 ... when some are offline).
    const columns = header.trim().split(/\s+/).map((name) => Number(name.replace(/^CPU/, '')));
    const cpus = columns.length;
    const counts = new Array(cpus).fill(0);
    const pattern = new RegExp(`\\b${name}(-req|q)\\d*`);
    for (const line of lines) {
      if (!pattern.test(line)) continue;
      const fields = line.trim().split(/\s+/);
      for (let c = 0; c < cpus; c++) counts[c] += Number(fields[1 + c]) || 0;
    }
    const best = counts.indexOf(Math.max(...counts));
    return counts[best] > 0 && Number.isInteger(columns[best]) ? columns[best] : undefined;
  } catch {
    return undefined;
  }
}
