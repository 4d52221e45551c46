/**
 * Calls on a root's filesystem: target probes, the removal of a run's files, and on a device the
 * read of an NVMe log page. A stat, an open, an unlink or an admin command on a frozen
 * filesystem or an ailing device can take forever, and a thread stuck in the kernel cannot be
 * taken back. So each call runs on a thread of the engine's own with a
 * deadline (never on libuv's pool, which every other file operation of the process needs), at
 * most one at a time per root; a call past its deadline is answered ESTUCK, and its root is
 * answered ESTUCK at once until the call returns. A root where a job was given up on (its I/O
 * stuck) is refused the same way, and so is every root while the process holds as many stuck
 * threads as it may (setStuckThreadLimit).
 */
import { nativeAddon } from '../engine/addon.js';
import type { NativeNvmeLogPage, NativeNvmeLogPageRequest, NativePathRef, NativeStuck, NativeTargetInfo } from '../engine/native-types.js';
import { VolbenchError } from '../errors.js';

/** How long a probe or a removal may take before its root counts as not answering. */
export const ROOT_CALL_DEADLINE_MS = 5000;

/** Per root: settles once the call in flight there has returned or passed its deadline. */
const inFlight = new Map<string, Promise<void>>();

/** The process's stuck threads (jobs given up on, calls past their deadline), with their roots. */
export function stuckTally(): NativeStuck {
  return nativeAddon().stuck();
}

/** The most stuck threads this process keeps (default 64): past it, jobs are not given up on and roots take no new call. */
export function setStuckThreadLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > 65536) {
    throw new VolbenchError('EINVALID_VALUE', `the stuck-thread limit is a whole number from 1 to 65536, not ${limit}`, {
      field: 'maxStuckThreads',
      accepted: '1 to 65536',
    });
  }
  nativeAddon().setStuckLimit(limit);
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/**
 * Throws ESTUCK when `anchor` has something stuck: I/O of a job given up on, or a call still in
 * flight (which, as the caller holds the root's turn, is one past its deadline).
 */
export function refuseStuckRoot(anchor: string, tally: NativeStuck = stuckTally()): void {
  const here = tally.entries.filter((e) => e.anchor === anchor);
  const ios = here.filter((e) => e.kind === 'job').reduce((n, e) => n + e.ios, 0);
  const calls = here.filter((e) => e.kind === 'call').length;
  if (ios > 0) {
    throw new VolbenchError('ESTUCK', `target root ${anchor} has ${plural(ios, 'stuck I/O')} (a job given up on while its device did not answer); runs on it are refused until ${ios === 1 ? 'it returns' : 'they return'}`, { path: anchor });
  }
  if (calls > 0) {
    throw new VolbenchError('ESTUCK', `target root ${anchor} does not answer: ${plural(calls, 'call')} on it (a probe, a removal) has not returned in ${ROOT_CALL_DEADLINE_MS / 1000} s; runs on it are refused until it does`, { path: anchor });
  }
  if (tally.threads >= tally.limit) refuseFullTally(tally);
}

function refuseFullTally(tally: NativeStuck): never {
  throw new VolbenchError('ESTUCK', `this process holds ${plural(tally.threads, 'thread')} stuck in calls that have not returned, the most it keeps (${tally.limit}); it takes no new run until some return`);
}

/**
 * Runs `start` on `anchor` once no other call is in flight there, and refuses a stuck root or
 * a full tally first (ESTUCK). `start` begins the native call (null: the tally refused it). A
 * call past its deadline is answered ESTUCK; `onLate` is then handed the call itself, which
 * settles if and when its device answers.
 */
async function onRoot<T>(
  anchor: string, what: string, start: () => Promise<T> | null, onLate?: (call: Promise<T>) => void, deadlineMs = ROOT_CALL_DEADLINE_MS,
): Promise<T> {
  for (let busy = inFlight.get(anchor); busy !== undefined; busy = inFlight.get(anchor)) await busy;
  refuseStuckRoot(anchor);
  const call = start();
  if (call === null) refuseFullTally(stuckTally());
  let release!: () => void;
  const turn = new Promise<void>((resolve) => (release = resolve));
  inFlight.set(anchor, turn);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new VolbenchError('ESTUCK',
      `target root ${anchor} does not answer: ${what} has not returned in ${deadlineMs / 1000} s; runs on it are refused until it does`,
      { path: anchor })), deadlineMs);
  });
  try {
    return await Promise.race([call, deadline]);
  } catch (err) {
    if (err instanceof VolbenchError && err.code === 'ESTUCK') onLate?.(call);
    throw err;
  } finally {
    clearTimeout(timer);
    if (inFlight.get(anchor) === turn) inFlight.delete(anchor);
    release();
  }
}

/** Probes `path` beneath `ref`'s directory, on `anchor`'s turn. */
export function probeBeneath(path: string, ref: NativePathRef, anchor: string): Promise<NativeTargetInfo> {
  return onRoot(anchor, `a probe of ${path}`, () => nativeAddon().probeTarget(path, ref, anchor, ROOT_CALL_DEADLINE_MS));
}

/**
 * Removes `ref` while it is still the file (dev, ino) with that stamp (native FileStamp; '' for
 * none), on `anchor`'s turn: 0 or an errno. Past the deadline it rejects ESTUCK, after handing
 * `onLate` the removal that goes on.
 */
export function removeBeneath(
  ref: NativePathRef, file: { dev: bigint; ino: bigint; stamp: string }, anchor: string, onLate?: (call: Promise<number>) => void,
): Promise<number> {
  return onRoot(anchor, `the removal of ${ref.realPath ?? ref.name}`,
    () => nativeAddon().removeFile(ref, file.dev, file.ino, anchor, ROOT_CALL_DEADLINE_MS, file.stamp), onLate);
}

/**
 * How long an NVMe log page read may take: one admin command that a healthy controller answers
 * in well under a millisecond. The kernel's own timeout for the command is shorter still.
 */
export const NVME_LOG_PAGE_DEADLINE_MS = 2000;

/** Reads an NVMe log page from the device `request` names, on the device's turn (`anchor`: its path). */
export function readNvmeLogPageOn(request: NativeNvmeLogPageRequest, anchor: string): Promise<NativeNvmeLogPage> {
  return onRoot(anchor, `a read of NVMe log page 0x${request.lid.toString(16)}`,
    () => nativeAddon().readNvmeLogPage(request, anchor, NVME_LOG_PAGE_DEADLINE_MS), undefined, NVME_LOG_PAGE_DEADLINE_MS);
}
