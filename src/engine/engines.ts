/**
 * The engines, one row each, as fio's ioengine_ops: what the planner, the report and the
 * service need to know of an engine without asking it. The native side keeps its own table
 * (native/engines/registry.cc) with how each is set up and probed; the names are the contract.
 * Adding an engine adds a row here and one there, and touches no other engine.
 */

export type EngineName = 'io_uring' | 'libaio' | 'psync' | 'sync' | 'null';

export interface EngineSpec {
  name: EngineName;
  /** In words, for help and errors. */
  description: string;
  /**
   * Whether it does I/O on the target. The null engine completes every I/O at once and opens
   * nothing, as fio's does: no file is laid out, claimed or counted against a size limit, and
   * no device's disk_util changes.
   */
  touchesTarget: boolean;
  /** Several I/Os in flight at once (iodepth); a synchronous engine does one at a time. */
  asynchronous: boolean;
}

export const ENGINES: readonly EngineSpec[] = [
  { name: 'io_uring', description: 'Linux io_uring: shared rings, one system call per batch', touchesTarget: true, asynchronous: true },
  { name: 'libaio', description: 'Linux native AIO (io_submit, io_getevents)', touchesTarget: true, asynchronous: true },
  { name: 'psync', description: 'pread and pwrite, one I/O at a time', touchesTarget: true, asynchronous: false },
  { name: 'sync', description: 'lseek, then read or write, one I/O at a time', touchesTarget: true, asynchronous: false },
  {
    name: 'null', description: 'completes every I/O at once without touching a device (measures the engine itself)',
    touchesTarget: false, asynchronous: true,
  },
];

export const ENGINE_NAMES: readonly EngineName[] = ENGINES.map((e) => e.name);

/** Engines tried in order when ioengine is unset: the first the kernel sets up runs. */
export const AUTO_ENGINES: readonly EngineName[] = ['io_uring', 'libaio', 'psync'];

const BY_NAME = new Map(ENGINES.map((e) => [e.name, e]));

/** What an unset ioengine stands for: one of the automatic engines, each touching the target. */
const AUTO: EngineSpec = {
  name: AUTO_ENGINES[0], description: `the first of ${AUTO_ENGINES.join(', ')} that this kernel sets up`,
  touchesTarget: true, asynchronous: true,
};

/** The row of `name`; unset means volbench's automatic choice. */
export function engineSpec(name: EngineName | undefined): EngineSpec {
  return name === undefined ? AUTO : BY_NAME.get(name)!;
}

/**
 * io_uring's own options, by the names its engine reads them (native/engines/io_uring.h), as
 * fio's io_uring engine keeps its own option table.
 */
export interface IoUringOptions {
  /** Register the I/O buffers (fio's fixedbufs). */
  fixedBufs: boolean;
  /** Register the target's descriptor (fio's registerfiles). */
  registerFiles: boolean;
  /** A kernel thread polls the submission ring (fio's sqthread_poll). */
  sqThreadPoll: boolean;
  /** Completions are polled for (fio's hipri). */
  hipri: boolean;
}

/** Each engine's own options object; an engine without options takes an empty one. */
export interface EngineOptionsOf {
  io_uring: IoUringOptions;
  libaio: Record<string, never>;
  psync: Record<string, never>;
  sync: Record<string, never>;
  null: Record<string, never>;
}

/** An engine to try, with its own options. */
export type EngineChoice = { [K in EngineName]: { name: K; options: EngineOptionsOf[K] } }[EngineName];

/** Engines to try in order for a job's ioengine. */
export function enginesFor(name: EngineName | undefined): EngineName[] {
  return name === undefined ? [...AUTO_ENGINES] : [name];
}
