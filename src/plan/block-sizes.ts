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

/** Whether direction d draws its sizes from a range (bsrange of two sizes, no bssplit). */
function ranged(o: JobOptions, d: number): boolean {
  const range = o.bsrange?.[d];
  return range !== undefined && range[0] !== range[1] && !(o.bssplit?.[d]?.length);
}

/**
 * The block size table of each direction: bssplit where given, else bsrange, else bs. A range is
 * its two ends (the draw between them is the engine's, flagged by bsRanges), the smaller with
 * the whole share, so every table adds up to 100.
 */
export function blockSizes(o: JobOptions): PerDirection<NativeBsSplit[]> {
  return [0, 1, 2].map((d) => {
    const split = o.bssplit?.[d];
    if (split && split.length > 0) return split.map((e) => ({ bs: e.bs, pct: e.pct }));
    const range = o.bsrange?.[d];
    if (range && ranged(o, d)) return [{ bs: range[0], pct: 100 }, { bs: range[1], pct: 0 }];
    return [{ bs: range ? range[0] : o.bs[d], pct: 100 }];
  }) as PerDirection<NativeBsSplit[]>;
}

/** Per direction, 1 where the engine draws each size from its table's range (bsrange). */
export function bsRanges(o: JobOptions): PerDirection<number> {
  return [0, 1, 2].map((d) => (ranged(o, d) ? 1 : 0)) as PerDirection<number>;
}

/** Whether a direction draws its sizes (more than one in its table: bssplit, bsrange). */
export function drawsSizes(o: JobOptions): boolean {
  return blockSizes(o).some((table) => table.length > 1);
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
