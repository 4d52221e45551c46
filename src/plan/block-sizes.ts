/**
 * A job's block sizes as the engine takes them, and whether its offsets are random: read by the
 * native plan, the random map and the target checks alike.
 */
import type { NativeBsSplit } from '../engine/native-types.js';
import type { JobOptions, PerDirection, RwMode } from '../jobspec/types.js';

const RANDOM_MODES: ReadonlySet<RwMode> = new Set(['randread', 'randwrite', 'randtrim', 'randrw']);

export function isRandom(rw: RwMode): boolean {
  return RANDOM_MODES.has(rw);
}

/** The block size table of each direction: bssplit where given, else bs. */
export function blockSizes(o: JobOptions): PerDirection<NativeBsSplit[]> {
  return [0, 1, 2].map((d) => {
    const split = o.bssplit?.[d];
    if (split && split.length > 0) return split.map((e) => ({ bs: e.bs, pct: e.pct }));
    return [{ bs: o.bs[d], pct: 100 }];
  }) as PerDirection<NativeBsSplit[]>;
}

/** The largest block the job moves in any direction: what each I/O buffer must hold. */
export function maxBlockSize(o: JobOptions): number {
  return Math.max(...blockSizes(o).flat().map((e) => e.bs));
}

/**
 * From this block size on, whether an I/O reaches the device as one request can depend on its
 * buffer's physical layout (a segment per physically contiguous run, against the device's
 * segment limit). So from here the engine is told to say how much of the buffers are in huge
 * pages (the kernel's choice with transparent_hugepage=always, fio's buffers alike), and
 * fixedbufs is off unless asked for (engine-options.ts). The one place this size is written.
 */
export const SEGMENT_BOUND_BS = 128 * 1024;
