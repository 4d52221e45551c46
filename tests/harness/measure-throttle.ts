// How closely the emulation holds a loop device to a limit, pattern by pattern: fio runs in the
// throttled group, and what it got is read from the kernel (the throttle's bios, the device's
// bytes) and from fio, as ratios to the limit. A measurement, not a test: run it on a quiet machine.
//
//   node --import ./tests/harness/from-source.js tests/harness/measure-throttle.ts [--seconds 5] [--iops 2000] [--mibps 100]
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { BlkioGroup, deviceStat } from './blkio.js';
import { createLoopVolume, rehearsalDir } from './loop-volume.js';
import type { ThrottleSpec } from './throttle-model.js';
import { VolumeThrottle } from './volume-throttle.js';

interface Pattern { limit: 'iops' | 'bps'; rw: string; bs: string; iodepth: number }
/** What this reads of fio's JSON job. */
interface FioJob { job_runtime: number; read: { total_ios: number; io_bytes: number }; write: { total_ios: number; io_bytes: number } }

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, iops: { type: 'string', default: '2000' }, mibps: { type: 'string', default: '100' } } });
const seconds = Number(values.seconds);
const iops = Number(values.iops);
const bps = Number(values.mibps) * 1024 * 1024;
const PATTERNS: Pattern[] = [
  { limit: 'iops', rw: 'randread', bs: '16k', iodepth: 16 },
  { limit: 'iops', rw: 'randwrite', bs: '16k', iodepth: 16 },
  { limit: 'iops', rw: 'randrw', bs: '16k', iodepth: 16 },
  { limit: 'iops', rw: 'read', bs: '4k', iodepth: 4 },
  { limit: 'iops', rw: 'randread', bs: '256k', iodepth: 8 },
  { limit: 'iops', rw: 'randread', bs: '1m', iodepth: 8 },
  { limit: 'bps', rw: 'read', bs: '1m', iodepth: 8 },
  { limit: 'bps', rw: 'write', bs: '1m', iodepth: 8 },
  { limit: 'bps', rw: 'read', bs: '128k', iodepth: 8 },
  { limit: 'bps', rw: 'randwrite', bs: '64k', iodepth: 16 },
];

function fio(group: BlkioGroup, device: string, p: Pattern): Promise<FioJob> {
  return new Promise((resolve, reject) => {
    const child = group.spawn('fio', ['--name=m', `--filename=${device}`, '--direct=1', '--ioengine=libaio', `--rw=${p.rw}`, `--bs=${p.bs}`, `--iodepth=${p.iodepth}`,
      '--time_based', `--runtime=${seconds}`, '--output-format=json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out).jobs[0]) : reject(new Error(`fio exited ${code}`))));
  });
}

const dir = rehearsalDir();
const volume = createLoopVolume({ dir, sizeBytes: 100 * 1024 ** 3, tmpfsBytes: 512 * 1024 ** 2 });
const group = BlkioGroup.create('measure');
try {
  for (const p of PATTERNS) {
    const spec: ThrottleSpec = { limiters: [{ name: 'volume', baseline: p.limit === 'iops' ? { iops } : { bps } }] };
    const throttle = new VolumeThrottle({ group, majMin: volume.majMin, spec }).start();
    const cg0 = group.counters(volume.majMin);
    const dev0 = deviceStat(volume.majMin);
    const job = await fio(group, volume.device, p);
    const cg1 = group.counters(volume.majMin);
    const dev1 = deviceStat(volume.majMin);
    throttle.stop();
    const s = job.job_runtime / 1000;
    const bios = cg1.read.bios + cg1.write.bios - cg0.read.bios - cg0.write.bios;
    const bytes = dev1.read.bytes + dev1.write.bytes - dev0.read.bytes - dev0.write.bytes;
    const fioIos = job.read.total_ios + job.write.total_ios;
    const limit = p.limit === 'iops' ? iops : bps;
    const kernel = p.limit === 'iops' ? bios / s : bytes / s;
    const byFio = p.limit === 'iops' ? fioIos / s : (job.read.io_bytes + job.write.io_bytes) / s;
    console.log(JSON.stringify({
      pattern: `${p.rw} ${p.bs} QD${p.iodepth}`, limit: `${p.limit} ${p.limit === 'iops' ? iops : `${values.mibps} MiB/s`}`,
      kernel_vs_limit: +(kernel / limit).toFixed(3), fio_vs_limit: +(byFio / limit).toFixed(3), bios_per_io: +(bios / fioIos).toFixed(2),
    }));
  }
} finally {
  group.remove();
  volume.close();
  rmSync(dir, { recursive: true, force: true });
}
