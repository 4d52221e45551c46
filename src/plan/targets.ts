/**
 * Where each job instance does its I/O: the path (fio's filename/directory rules), the region
 * (offset, size, offset_increment), the file length to lay out, and every check that must pass
 * before the first I/O: the target exists or can be created, is big enough, is aligned for
 * direct I/O, and may be written.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

import { engineSpec } from '../engine/engines.js';
import type { NativeExpect, NativePathRef, NativeTargetInfo } from '../engine/native-types.js';
import { VolbenchError } from '../errors.js';
import type { JobOptions } from '../jobspec/types.js';
import type { InstanceTarget, LogTarget } from './native-plan.js';

export type { LogTarget } from './native-plan.js';
import { directionsUsed } from '../jobspec/directions.js';
import { blockSizes } from './block-sizes.js';
import { assertWritableBlockDevice, assertWritableFile, blockSizeFor, fileUsage, resolveTarget } from '../device/index.js';
import { identityOf, probedIdentity, sameIdentity, type Anchors, type PathRef } from '../device/anchor.js';
import { HeldTargets } from './held-targets.js';
import { probeBeneath } from '../device/root-calls.js';
import type { ResolvedTarget } from '../device/resolve.js';
import { checkInstanceNameLength, checkNameLength } from './name-length.js';
import { fileRegions, type FileRegion } from './file-regions.js';

/**
 * An instance's files, as fio names them: each `filename` (every instance shares them), or
 * without one `nrfiles` files `<jobname>.<instance>.<n>` of its own. A name goes inside
 * `directory` when one is given, even an absolute filename (fio joins them: /tmp/A and /tmp/B/x
 * give /tmp/A/tmp/B/x), else as given, relative to cwd. Of several directories, fio gives each
 * instance its own in turn for the files it names itself, and the first to every filename.
 */
export function instancePaths(o: JobOptions, instance: number, cwd: string): string[] {
  const names = o.filename ?? Array.from({ length: o.nrfiles }, (_, n) => `${o.name}.${instance}.${n}`);
  const dirs = o.directory;
  if (dirs === undefined) return names.map((name) => (isAbsolute(name) ? name : resolve(cwd, name)));
  const dir = resolve(cwd, o.filename === undefined ? dirs[instance % dirs.length] : dirs[0]);
  return names.map((name) => join(dir, name));
}

/** An instance's first file: its target, the one its report names. */
export function instancePath(o: JobOptions, instance: number, cwd: string): string {
  return instancePaths(o, instance, cwd)[0];
}

function minBlockSize(o: JobOptions): number {
  return Math.min(...blockSizes(o).flat().map((e) => e.bs));
}

/** Filesystems whose files live in the page cache alone. */
const IN_MEMORY_FS: ReadonlySet<string> = new Set(['tmpfs', 'ramfs']);

/**
 * Probes a path once per planning pass, beneath the directory it will be opened in, on a thread
 * of its own with a deadline and on its root's turn (root-calls.ts): a root that does not answer,
 * or has I/O stuck, is refused (ESTUCK) rather than waited on.
 */
export class TargetProber {
  private readonly cache = new Map<string, Promise<NativeTargetInfo>>();

  probe(path: string, ref: NativePathRef, anchor: string): Promise<NativeTargetInfo> {
    let info = this.cache.get(path);
    if (!info) {
      info = probeBeneath(path, ref, anchor);
      this.cache.set(path, info);
    }
    return info;
  }
}

/** Whether a job writes its target: writes and trims both change what is on it. */
export function writesTarget(o: JobOptions): boolean {
  const used = directionsUsed(o);
  return used[1] || used[2];
}

/**
 * The block-write opt-in, the one place it is decided: whether a job may write the block device
 * at `devicePath` (resolved). The caller's rule when it has one (a service: whether the device's
 * root was started with --allow-block-write; the spec's allow_block_write is then ignored),
 * else the job's own allow_block_write. Mounted or held devices are refused whatever this says.
 */
export function blockWriteAllowed(o: JobOptions, devicePath: string, rule?: (devicePath: string) => boolean): boolean {
  return rule ? rule(devicePath) : o.allow_block_write;
}

export interface ResolveContext {
  cwd: string;
  field: string;
  prober: TargetProber;
  /** See PlanOptions.heldDevices. */
  heldDevices?: ReadonlySet<string>;
  /** See PlanOptions.allowBlockWrite. */
  allowBlockWrite?: (devicePath: string) => boolean;
  /** The directories the plan's paths are opened beneath. */
  anchors: Anchors;
  /** See PlanOptions.held. */
  held?: HeldTargets;
}

/** An instance's files, checked, and the bytes a loop of it issues over them. */
export interface InstanceTargets {
  files: InstanceTarget[];
  ioBytesPerLoop: number;
}

/**
 * An instance's files, each checked as a target is: its directory, what its name leads to
 * (probed beneath its held directory), its region, the bytes to lay out, and whether it may be
 * read directly and written. Each step throws ETARGET (or EINVALID_PLAN) naming the field, in
 * this order, for the first file it fails on.
 */
export async function resolveInstanceTargets(o: JobOptions, instance: number, ctx: ResolveContext): Promise<InstanceTargets> {
  const paths = instancePaths(o, instance, ctx.cwd);
  for (const path of paths) checkInstanceNameLength(o, path, (option) => `${ctx.field}.${option}`);
  const { field } = ctx;
  checkDirectories(o, ctx);
  if (!engineSpec(o.ioengine).touchesTarget) return nullTargets(o, paths[0], field);
  const probed = [];
  for (const path of paths) {
    const found = await probeTarget(path, ctx);
    checkKind(o, path, found.info, field);
    probed.push({ path, ...found });
  }
  const facts = probed.map(({ path, info }) => ({ path, exists: info.exists, sizeBytes: info.sizeBytes, isBlockDevice: info.isBlockDevice }));
  const regions = fileRegions(o, instance, facts, minBlockSize(o), field);
  const files: InstanceTarget[] = [];
  for (const [i, file] of probed.entries()) files.push(await checkedFile(o, file, regions.files[i], ctx));
  return { files, ioBytesPerLoop: regions.ioBytesPerLoop };
}

interface ProbedFile {
  path: string;
  resolved: ResolvedTarget;
  ref: NativePathRef;
  anchor: string;
  info: NativeTargetInfo;
}

/** One file of an instance and its region, checked. */
async function checkedFile(o: JobOptions, file: ProbedFile, region: FileRegion, ctx: ResolveContext): Promise<InstanceTarget> {
  const { path, resolved, ref, anchor, info } = file;
  const { field } = ctx;
  const { offset, bytes: size } = region;
  if (info.isBlockDevice && offset + size > info.sizeBytes) {
    throw new VolbenchError('ETARGET', `${path} is ${info.sizeBytes} bytes, too small for offset ${offset} + size ${size} = ${offset + size}`,
      { field: `${field}.size`, path, accepted: `offset + size up to ${info.sizeBytes}` });
  }
  const layoutBytes = info.isBlockDevice ? 0 : await layoutFor(o, path, resolved, info, region.end, field);
  const writes = writesTarget(o);
  if (o.direct) await checkDirect(o, path, info, offset, ctx);
  // Every check below looks at what was resolved (and probed) above, never at the name again.
  if (writes && info.isBlockDevice) {
    const allowed = blockWriteAllowed(o, resolved.resolvedPath, ctx.allowBlockWrite);
    await assertWritableBlockDevice(path, allowed, `${field}.allow_block_write`, ctx.heldDevices, resolved);
  }
  if (writes && info.exists && info.isRegularFile) await checkWrittenFile(path, `${field}.filename`, resolved, o, ctx);
  return {
    path,
    anchor,
    ref,
    unlinkRef: o.unlink ? await nameAsGiven(path, ctx, field) : null,
    // What the checks above looked at: the engine must find the same there.
    expect: identityOf(resolved.exists ? resolved.stats : null),
    isBlockDevice: info.isBlockDevice,
    regionOffset: offset,
    regionBytes: size,
    layoutBytes,
    existingBytes: info.exists && info.isRegularFile ? info.sizeBytes : 0,
    exclusive: writes && info.isBlockDevice,
    inMemoryFs: !info.isBlockDevice && IN_MEMORY_FS.has(info.fsType),
  };
}

/** The job's directory=, when given, must be an existing directory, each of them. */
function checkDirectories(o: JobOptions, ctx: ResolveContext): void {
  for (const given of o.directory ?? []) {
    const directory = resolve(ctx.cwd, given);
    if (existsSync(directory) && statSync(directory).isDirectory()) continue;
    throw new VolbenchError('ETARGET', `directory ${given}${directory === given ? '' : ` (${directory})`} does not exist`, {
      field: `${ctx.field}.directory`,
      path: given,
      accepted: 'an existing directory',
    });
  }
}

/**
 * What the name leads to, resolved and then probed beneath its held directory: from here the
 * target is looked at, and later opened, beneath that directory only. Both must be the same
 * thing, and it must be there or creatable, and openable.
 */
async function probeTarget(path: string, ctx: ResolveContext): Promise<Omit<ProbedFile, 'path'>> {
  const field = `${ctx.field}.filename`;
  const { resolved, ref } = await resolveAndRefer(path, field, ctx);
  const anchor = ctx.anchors.anchorOf(resolved.resolvedPath, resolved.exists && resolved.stats.isBlockDevice());
  const info = await ctx.prober.probe(path, ref, anchor);
  if (info.error === 0 && !sameIdentity(probedIdentity(info), identityOf(resolved.exists ? resolved.stats : null))) {
    // The name led to one thing when resolved and to another beneath its directory: the checks
    // would be made on one and the engine would open the other.
    throw new VolbenchError('ETARGET', `${path} changed while it was being checked`, { field, path });
  }
  if (!info.exists && info.error !== 0) {
    throw new VolbenchError('ETARGET', `cannot use ${path}: its directory does not exist or cannot be read (errno ${info.error})`, {
      field,
      path,
      errno: info.error,
    });
  }
  if (info.exists && info.error !== 0) {
    // It exists but could not be opened to read its size and block size (a device without read
    // permission): say so, rather than report it as empty.
    const why = info.error === osConstants.errno.EACCES ? 'permission denied' : `errno ${info.error}`;
    throw new VolbenchError('ETARGET', `cannot open ${path}: ${why}`, { field, path, errno: info.error });
  }
  return { resolved, ref, anchor, info };
}

/**
 * What `path` leads to and how the engine opens it: by name, or in a plan that holds its
 * directories (HeldTargets) beneath the directory pinned by the first plan that met it, and then
 * only as the file an earlier run there laid out or opened. A last component that is a link
 * out of that directory is followed as planning follows any link, and opened beneath its own.
 */
async function resolveAndRefer(path: string, field: string, ctx: ResolveContext): Promise<{ resolved: ResolvedTarget; ref: PathRef }> {
  if (ctx.held === undefined) {
    const resolved = await resolveTarget(path);
    return { resolved, ref: ctx.anchors.refer(resolved.resolvedPath, field, path) };
  }
  const pinned = ctx.held.pin(dirname(path), field, path);
  const resolved = await resolveTarget(`/proc/self/fd/${pinned.fd}/${basename(path)}`, path);
  ctx.held.check(path, identityOf(resolved.exists ? resolved.stats : null), field);
  const ref = dirname(resolved.resolvedPath) === HeldTargets.whereNow(pinned)
    ? ctx.anchors.referIn(pinned.fd, resolved.resolvedPath, field, path)
    : ctx.anchors.refer(resolved.resolvedPath, field, path);
  return { resolved, ref };
}

/** A regular file (created if missing) or a block device; trims need the device. */
function checkKind(o: JobOptions, path: string, info: NativeTargetInfo, field: string): void {
  if (info.exists && !info.isBlockDevice && !info.isRegularFile) {
    throw new VolbenchError('ETARGET', `${path} is neither a regular file nor a block device`, {
      field: `${field}.filename`,
      path,
      accepted: 'a regular file (created if missing) or a block device',
    });
  }
  if (directionsUsed(o)[2] && !info.isBlockDevice) {
    throw new VolbenchError('EINVALID_PLAN', `rw=${o.rw} trims, which needs a block device; ${path} is a file`, {
      field: `${field}.rw`,
      accepted: 'trim and randtrim on block devices only',
    });
  }
}

/** A file's length to lay out before I/O: what its filesystem must have room for, and may grow. */
async function layoutFor(o: JobOptions, path: string, resolved: ResolvedTarget, info: NativeTargetInfo, end: number, field: string): Promise<number> {
  const layoutBytes = Math.max(end, o.filesize ?? 0);
  const missing = layoutBytes - (info.exists ? info.sizeBytes : 0);
  const allocates = o.fallocate !== 'none' && o.fallocate !== 'truncate';
  const fills = directionsUsed(o)[0] || o.verify_only;
  if (missing > 0 && (allocates || fills) && missing > info.fsFreeBytes) {
    throw new VolbenchError(
      'ETARGET',
      `laying out ${path} needs ${missing} more bytes but its filesystem has ${info.fsFreeBytes} free`,
      { field: `${field}.size`, path },
    );
  }
  if (missing > 0 && info.exists) await refuseGrowingBackingFile(path, resolved, info.sizeBytes, layoutBytes, `${field}.size`);
  return layoutBytes;
}

/**
 * What a regular file that a job writes must not be: a swap file, or the file behind a loop
 * device that is in use or that may not be written (it gets the device's protection). The same
 * checks, status and code for a target and for a log, on what was resolved, never the name again.
 */
async function checkWrittenFile(path: string, field: string, resolved: ResolvedTarget, o: JobOptions, ctx: ResolveContext): Promise<void> {
  const mayWrite = (device: string): boolean => blockWriteAllowed(o, realpathSync(device), ctx.allowBlockWrite);
  await assertWritableFile(path, field, mayWrite, resolved);
}

/**
 * A log file: written like a target file, so checked like one (checkWrittenFile), and held to
 * what was seen here: the engine creates a new one exclusively, or opens this very file.
 */
export async function resolveLogTarget(path: string, field: string, o: JobOptions, ctx: ResolveContext): Promise<LogTarget> {
  checkNameLength(path, field, field);
  const { resolved, ref } = await resolveAndRefer(path, field, ctx);
  const expect = identityOf(resolved.exists ? resolved.stats : null);
  if (resolved.exists && expect.kind !== 'file') {
    throw new VolbenchError('ETARGET', `log ${path} exists and is not a regular file`, { field, path, accepted: 'a new or regular file' });
  }
  if (resolved.exists) await checkWrittenFile(path, field, resolved, o, ctx);
  return { ref, expect };
}

/**
 * The target as the user named it, for unlink=1: its directory resolved, its last component as
 * written, so that a symlink is removed as a link (the file it points to stays), as in fio.
 */
async function nameAsGiven(path: string, ctx: ResolveContext, field: string): Promise<NativePathRef> {
  if (ctx.held !== undefined) {
    const pinned = ctx.held.pin(dirname(path), `${field}.filename`, path);
    return ctx.anchors.referIn(pinned.fd, join(HeldTargets.whereNow(pinned), basename(path)), `${field}.filename`, path);
  }
  const dir = await resolveTarget(dirname(path));
  return ctx.anchors.refer(join(dir.resolvedPath, basename(path)), `${field}.filename`, path);
}

/**
 * Laying a file out extends it, and a read job lays out too. Growing the file behind a loop
 * device changes the device (a mounted image grew from 64 to 66 MiB under a read job), so a
 * file that backs one is never extended, whatever the job does.
 */
async function refuseGrowingBackingFile(path: string, resolved: ResolvedTarget, size: number, wanted: number, field: string): Promise<void> {
  const { loopDevices } = await fileUsage(path, resolved);
  if (loopDevices.length === 0) return;
  throw new VolbenchError('ETARGET',
    `${path} backs ${loopDevices.map((n) => `/dev/${n}`).join(', ')} and is ${size} bytes; the job would extend it to ${wanted}, and volbench never grows a file that backs a device`,
    { field, path, accepted: `offset + size up to ${size}` });
}

/**
 * An engine that touches no target (null), as fio's: the job needs only a size to count I/Os
 * against, and no file is opened or laid out (however many files it names).
 */
function nullTargets(o: JobOptions, path: string, field: string): InstanceTargets {
  if (o.size === undefined || !('bytes' in o.size)) {
    throw new VolbenchError('EINVALID_PLAN', 'ioengine=null needs size in bytes (e.g. size=1g)', {
      field: `${field}.size`,
      accepted: 'a size such as size=1g',
    });
  }
  const bs = minBlockSize(o);
  const offset = 'bytes' in o.offset ? o.offset.bytes : 0;
  const regionBytes = Math.floor(o.size.bytes / bs) * bs;
  const target: InstanceTarget = {
    path,
    anchor: '',
    ref: { dirFd: -1, name: '' },
    unlinkRef: null,
    expect: identityOf(null),
    isBlockDevice: false,
    regionOffset: offset,
    regionBytes,
    layoutBytes: 0,
    existingBytes: 0,
    exclusive: false,
    inMemoryFs: false,
  };
  const ioBytesPerLoop = o.io_size === undefined ? regionBytes
    : 'bytes' in o.io_size ? o.io_size.bytes : Math.floor((regionBytes * o.io_size.percent) / 100 / bs) * bs;
  return { files: [target], ioBytesPerLoop };
}

async function checkDirect(o: JobOptions, path: string, info: NativeTargetInfo, offset: number, ctx: ResolveContext): Promise<void> {
  const { field } = ctx;
  if (!info.directOk) {
    throw new VolbenchError('ETARGET', `${path} does not accept O_DIRECT (direct=1)`, {
      field: `${field}.direct`,
      path,
      accepted: 'direct=0 here, or a target on a filesystem or device that supports direct I/O',
    });
  }
  const lbs = info.isBlockDevice && info.logicalBlockSize > 0 ? info.logicalBlockSize : await blockSizeFor(path);
  const used = directionsUsed(o);
  const tables = blockSizes(o);
  for (let d = 0; d < 3; d++) {
    if (!used[d] && !(d === 0 && (o.verify_only || o.verify !== 'none'))) continue;
    for (const { bs } of tables[d]) {
      if (bs % lbs !== 0) {
        throw new VolbenchError(
          'EINVALID_PLAN',
          `bs=${bs} is not a multiple of the logical block size of ${path} (${lbs} bytes); with direct=1 every I/O must be aligned to it`,
          { field: `${field}.${o.bssplit ? 'bssplit' : 'bs'}`, path, accepted: `multiples of ${lbs}` },
        );
      }
    }
    const align = o.blockalign[d];
    if (align && align % lbs !== 0) {
      throw new VolbenchError('EINVALID_PLAN', `blockalign=${align} is not a multiple of ${path}'s logical block size (${lbs})`, {
        field: `${field}.blockalign`,
        path,
        accepted: `multiples of ${lbs}`,
      });
    }
  }
  if (offset % lbs !== 0) {
    throw new VolbenchError(
      'EINVALID_PLAN',
      `offset ${offset} is not a multiple of the logical block size of ${path} (${lbs} bytes), which direct=1 needs`,
      { field: `${field}.offset`, path, accepted: `multiples of ${lbs}` },
    );
  }
}

