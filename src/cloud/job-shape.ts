/**
 * A job as its entitlement reads it from a result: the options fio ran it with (its own section
 * over `[global]`, as fio merges them), the engine that ran, and what it measured per direction.
 * A result from elsewhere may hold anything: every figure here is a finite number or absent.
 */
import type { FioDirStats, FioJson } from '../fio-output/fio-result.js';
import { splitDirections } from '../jobspec/per-direction.js';
import { parseSize } from '../jobspec/units.js';
import { directionOf, SEQUENTIAL_RW, type Direction } from './entitlement.js';

/** What one direction of a job did (trims count as writes, as AWS counts them). */
export interface DirMeasure {
  ios: number;
  bytes: number;
  iops: number;
  bwBytes: number;
  /** Its average I/O size, bytes. */
  bs: number;
}

export interface JobShape {
  rw: string;
  direction: Direction;
  sequential: boolean;
  /** Percent of a mix's I/Os that are reads, as the job asks (rwmixread, or 100 − rwmixwrite; fio's 50). */
  rwmixread: number;
  /** The I/Os in flight the job keeps: iodepth per instance (1 for a synchronous engine) times its instances. */
  depth: number;
  /** The job's average I/O size over both directions, bytes. */
  bs: number;
  read?: DirMeasure;
  write?: DirMeasure;
  measuredIops: number;
  measuredBwBytes: number;
  /** Mean total latency (submission and completion) over its I/Os, ns; 0 when the result has none. */
  latencyNs: number;
  /** The IOPS the job's own rate or rate_iops allow it (over its directions and instances), when it caps every direction it does. */
  askedIops?: number;
}

/** Engines that keep one I/O in flight whatever iodepth says (fio's synchronous engines). */
const SYNC_ENGINES = new Set(['sync', 'psync', 'vsync', 'pvsync', 'pvsync2', 'mmap']);

const finite = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A job's options as fio ran it: the document's `[global]`, then its own section. */
export function mergedOptions(doc: FioJson, index: number): Record<string, string> {
  const own = doc.jobs[index]?.['job options'] ?? {};
  const global = doc['global options'] ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of [...Object.entries(global), ...Object.entries(own)]) if (typeof v === 'string') out[k] = v;
  return out;
}

function whole(text: string | undefined, fallback: number): number {
  const n = text === undefined ? NaN : Number(text);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** A per-direction option (rate, rate_iops) as numbers for read and write; 0 where a direction is not capped. */
function perDirection(text: string | undefined, parse: (part: string) => number): [number, number] {
  if (!text) return [0, 0];
  try {
    const slots = splitDirections(text, 'option', 'value');
    const at = (s: string | undefined) => (s === undefined ? 0 : parse(s));
    return [at(slots[0]), at(slots[1])];
  } catch {
    return [0, 0];
  }
}

function dirMeasure(stats: Array<FioDirStats | undefined>): DirMeasure | undefined {
  const ios = stats.reduce((s, d) => s + finite(d?.total_ios), 0);
  if (ios <= 0) return undefined;
  const bytes = stats.reduce((s, d) => s + finite(d?.io_bytes), 0);
  return {
    ios, bytes, bs: Math.max(1, Math.round(bytes / ios)),
    iops: stats.reduce((s, d) => s + finite(d?.iops), 0),
    bwBytes: stats.reduce((s, d) => s + finite(d?.bw_bytes), 0),
  };
}

/** The mix the job asks for: rwmixread, else what rwmixwrite leaves, else fio's half. */
function readPercent(o: Record<string, string>): number {
  if (o.rwmixread !== undefined) return Math.min(100, whole(o.rwmixread, 50));
  if (o.rwmixwrite !== undefined) return 100 - Math.min(100, whole(o.rwmixwrite, 50));
  return 50;
}

/** The IOPS the job's rate caps allow, over the directions it does; undefined when one of them is not capped. */
function askedIops(o: Record<string, string>, shape: Pick<JobShape, 'read' | 'write' | 'direction' | 'bs'>, instances: number): number | undefined {
  const iops = perDirection(o.rate_iops, (s) => Number(s) || 0);
  const bytes = perDirection(o.rate, (s) => parseSize(s));
  const dirs = shape.direction === 'mixed' ? [0, 1] : shape.direction === 'write' ? [1] : [0];
  let total = 0;
  for (const i of dirs) {
    const bs = (i === 0 ? shape.read?.bs : shape.write?.bs) ?? shape.bs;
    const caps = [iops[i], bytes[i] > 0 ? bytes[i] / bs : 0].filter((c) => c > 0);
    if (caps.length === 0) return undefined;
    total += Math.min(...caps) * instances;
  }
  return total;
}

/** The job at `index` of `doc`, or undefined when it did no I/O. */
export function jobShape(doc: FioJson, index: number): JobShape | undefined {
  const job = doc.jobs[index];
  const vj = doc.volbench?.jobs?.[index];
  if (!job) return undefined;
  const read = dirMeasure([job.read]);
  const write = dirMeasure([job.write, job.trim]);
  const all = [read, write].filter((d): d is DirMeasure => d !== undefined);
  const ios = all.reduce((s, d) => s + d.ios, 0);
  if (ios === 0) return undefined;
  const o = mergedOptions(doc, index);
  const rw = o.rw ?? o.readwrite ?? 'read';
  const instances = Math.max(1, finite(vj?.members) || whole(o.numjobs, 1));
  const engine = vj?.engine ?? o.ioengine ?? '';
  const perInstance = SYNC_ENGINES.has(engine) ? 1 : Math.max(1, whole(o.iodepth, 1));
  const latWeighted = [job.read, job.write, job.trim].reduce((s, d) => s + finite(d?.lat_ns?.mean ?? d?.clat_ns?.mean) * finite(d?.total_ios), 0);
  const bs = Math.max(1, Math.round(all.reduce((s, d) => s + d.bytes, 0) / ios));
  const direction = directionOf(rw);
  const shape: JobShape = {
    rw, direction, sequential: SEQUENTIAL_RW.has(rw), rwmixread: readPercent(o), depth: perInstance * instances, bs,
    ...(read ? { read } : {}), ...(write ? { write } : {}),
    measuredIops: all.reduce((s, d) => s + d.iops, 0), measuredBwBytes: all.reduce((s, d) => s + d.bwBytes, 0),
    latencyNs: latWeighted / ios,
  };
  const asked = askedIops(o, shape, instances);
  return asked === undefined ? shape : { ...shape, askedIops: asked };
}
