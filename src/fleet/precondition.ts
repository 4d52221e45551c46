/**
 * Preconditioning: a never-written EBS block reads back without touching the media, so a read
 * test on a fresh volume measures nothing real. Before a suite that reads, each member writes,
 * once, what its read tests will reach: a test with a size reaches its offset and size; a
 * time-based test over the whole device reaches what its runtime can cover at the volume's
 * fastest rate (the bucket full, the instance's burst left), never more than the device.
 */
import { entitlement, loadInstances, type Volume } from '../cloud/index.js';
import { parseSpec } from '../jobspec/index.js';
import type { JobOptions, SizeOrPercent } from '../jobspec/types.js';
import { loadSuite, sizedSpec, type SuiteOverrides } from '../suites/index.js';

/** The precondition's own I/O: 1 MiB sequential writes, 8 in flight. */
const WRITE_BS = 1 << 20;
const GiB = 2 ** 30;
const MiB = 2 ** 20;

export interface Precondition {
  /** Bytes written from the device's start: the furthest any read test reaches. */
  bytes: number;
  /** How long the write takes at the volume's sequential write rate (seconds). */
  seconds: number;
}

const READS = new Set(['read', 'randread', 'rw', 'readwrite', 'randrw', 'trimwrite']);

function bytesOf(v: SizeOrPercent | undefined, device: number): number | undefined {
  if (v === undefined) return undefined;
  return 'bytes' in v ? v.bytes : Math.floor((device * v.percent) / 100);
}

/** How far from the device's start one job reads. */
function reach(o: JobOptions, device: number, fastestBps: number): number {
  const start = (bytesOf(o.offset, device) ?? 0) + (bytesOf(o.offset_increment, device) ?? 0) * Math.max(0, o.numjobs - 1);
  const size = bytesOf(o.size, device) ?? o.filesize;
  const extent = size ?? device - start;
  // A time-based job over its whole extent covers what its runtime allows; one with a size wraps within it.
  const covered = size === undefined && o.time_based && o.runtime_ns > 0 ? Math.min(extent, (o.runtime_ns / 1e9) * fastestBps) : extent;
  return Math.min(device, start + covered);
}

/** The precondition a suite needs on `volume` behind `instance`, or undefined when its tests do not read. */
export function preconditionFor(volume: Volume, instance: string | undefined, suiteName: string, overrides: Pick<SuiteOverrides, 'runtime' | 'size'> = {}): Precondition | undefined {
  const device = volume.sizeGiB * GiB;
  if (!device) return undefined;
  // An instance the catalog lacks bounds nothing here: the volume's own rates (the plan warns of it).
  if (!loadInstances().some((i) => i.type === instance)) instance = undefined;
  const spec = parseSpec(sizedSpec(loadSuite(suiteName), overrides));
  const fastest = entitlement(volume, { bs: 64 * MiB, sequential: true, ...(instance ? { instance } : {}), direction: 'read' }).entitled.mibps * MiB;
  const jobs = spec.jobs.map((j) => j.options).filter((o) => READS.has(o.rw));
  if (jobs.length === 0) return undefined;
  const raw = Math.max(...jobs.map((o) => reach(o, device, fastest)));
  const bytes = Math.min(device, Math.ceil(raw / WRITE_BS) * WRITE_BS);
  const writeBps = entitlement(volume, { bs: WRITE_BS, sequential: true, ...(instance ? { instance } : {}), direction: 'write' }).entitled.mibps * MiB;
  return { bytes, seconds: writeBps > 0 ? bytes / writeBps : 0 };
}

/** The job a member runs to precondition its device: fio's options, as POST /v1/runs takes a spec. */
export function preconditionJob(device: string, bytes: number): { global: Record<string, string | number>; jobs: Array<Record<string, string | number>> } {
  return {
    global: { filename: device, direct: 1, ioengine: 'libaio', iodepth: 8, bs: WRITE_BS, allow_block_write: 1 },
    jobs: [{ name: 'precondition', rw: 'write', size: bytes }],
  };
}
