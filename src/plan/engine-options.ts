/**
 * Each engine's own options for a job, one function per engine (engines.ts names their shapes,
 * the engine's native header reads them): fio's options as the engine that takes them sees them.
 */
import type { EngineChoice, EngineName, EngineOptionsOf } from '../engine/engines.js';
import type { JobOptions } from '../jobspec/types.js';
import { maxBlockSize, SEGMENT_BOUND_BS } from './block-sizes.js';

type OptionsFor = { [K in EngineName]: (o: JobOptions, inMemoryFs: boolean) => EngineOptionsOf[K] };

const NONE = (): Record<string, never> => ({});

const OPTIONS: OptionsFor = {
  io_uring: (o, inMemoryFs) => ({
    fixedBufs: o.fixedbufs ?? registeredBuffersByDefault(o, inMemoryFs),
    registerFiles: o.registerfiles ?? true,
    sqThreadPoll: o.sqthread_poll,
    hipri: o.hipri,
  }),
  libaio: NONE,
  psync: NONE,
  sync: NONE,
  null: NONE,
};

/** The engines to try, in order, each with its options for job `o` on a target (in memory or not). */
export function engineChoices(names: readonly EngineName[], o: JobOptions, inMemoryFs: boolean): EngineChoice[] {
  return names.map((name) => ({ name, options: OPTIONS[name](o, inMemoryFs) }) as EngineChoice);
}

/**
 * Whether io_uring registers the I/O buffers when the job does not say (fio never does unless
 * `fixedbufs` is set). Registered buffers save pinning the pages of every I/O, and where blocks
 * are small that is all they change. Two places they change more:
 * - On an in-memory filesystem the kernel copies instead of DMA, and Linux 6.18 punts reads
 *   into registered buffers to one io-wq worker, which then bounds the run (480k IOPS against
 *   610k without): off there.
 * - A large I/O reaches the device split wherever its buffer has more physical runs than the
 *   device takes segments (254 on virtio-blk, 128 on a loop device, 127 on many NVMe drives).
 *   The kernel joins physically adjacent pages of an ordinary buffer into one segment, never
 *   those of a registered one: with them a 1 MiB read reaches a virtio disk as two 512 KiB
 *   requests every time, without them (fio's way) as one or two, by the page allocator's
 *   chance. Off from SEGMENT_BOUND_BS on, so that the disk sees what it sees under fio.
 */
function registeredBuffersByDefault(o: JobOptions, inMemoryFs: boolean): boolean {
  if (inMemoryFs) return false;
  return maxBlockSize(o) < SEGMENT_BOUND_BS;
}
