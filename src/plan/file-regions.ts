/**
 * How much of each file an instance works on, and how much it does in all: fio's setup_files
 * (filesetup.c), for one file or several.
 *
 * - `size` is the job's total over its files. Without `filesize`, each file gets size / nrfiles
 *   (the first files a block more each when that leaves blocks over); without `size` either, a
 *   file is used from `offset` to its end.
 * - `filesize` sets each file's length: a file of another length is used up to `filesize`,
 *   whatever `size` says, and `size` then caps what the job does over them (`--size=64m
 *   --filesize=16m` on one file: a 16 MiB file, 16 MiB of I/O).
 * - The job moves `size` bytes a loop, at most what its files hold, or `io_size` when given.
 */
import { VolbenchError } from '../errors.js';
import type { JobOptions, SizeOrPercent } from '../jobspec/types.js';
import { drawsSizes } from './block-sizes.js';

/** A file as planning found it. */
export interface FileFacts {
  path: string;
  exists: boolean;
  /** Its length (a device's size); 0 when it does not exist. */
  sizeBytes: number;
  isBlockDevice: boolean;
}

export interface FileRegion {
  offset: number;
  /** The region, whole blocks of the smallest size (unless sizes are drawn): where I/Os go. */
  bytes: number;
  /** The file's length the job needs (fio's offset + io_size), before whole blocks. */
  end: number;
}

export interface InstanceRegions {
  files: FileRegion[];
  /** Bytes a loop issues, over all the files. */
  ioBytesPerLoop: number;
}

/** `name` is the option (size, offset, ...); `field` its path in the spec, for the error. */
export function bytesOf(v: SizeOrPercent, whole: number, name: string, path: string, field: string): number {
  if ('bytes' in v) return v.bytes;
  if (whole <= 0) {
    throw new VolbenchError('ETARGET', `${name}=${v.percent}% needs an existing file or device to take a share of, and ${path} has no size yet`, {
      field,
      path,
      accepted: 'a size in bytes (e.g. 1g) for a new file',
    });
  }
  return Math.floor((whole * v.percent) / 100);
}

/** Each file's share of `size` (fio: size / nrfiles, a block more for the first files that are left over). */
function shares(o: JobOptions, count: number, minBs: number): number[] {
  const size = o.size !== undefined && 'bytes' in o.size ? o.size.bytes : 0;
  const each = Math.floor(size / count);
  let extra = Math.floor((size - each * count) / minBs);
  return Array.from({ length: count }, () => each + (extra-- > 0 ? minBs : 0));
}

function sizeNeeded(f: FileFacts, field: string): VolbenchError {
  return new VolbenchError('ETARGET', `size is needed: ${f.path} ${f.exists ? 'is empty' : 'does not exist'}`, {
    field: `${field}.size`,
    path: f.path,
    accepted: 'a size such as size=1g (or an existing file or device to use whole)',
  });
}

function offsetPastEnd(f: FileFacts, offset: number, end: number, field: string): VolbenchError {
  return new VolbenchError('ETARGET', `offset ${offset} is past the end of ${f.path} (${end} bytes)`, {
    field: `${field}.offset`,
    path: f.path,
    accepted: `an offset below ${end}`,
  });
}

/** One file's io_size (fio's f->io_size) from its offset. */
function ioSizeOf(o: JobOptions, f: FileFacts, offset: number, share: number, field: string): number {
  const whole = f.exists ? f.sizeBytes : 0;
  if (o.filesize !== undefined && whole !== o.filesize) {
    if (offset > o.filesize) throw offsetPastEnd(f, offset, o.filesize, field);
    return o.filesize - offset;
  }
  if (o.filesize !== undefined || share === 0) {
    if (whole === 0) throw sizeNeeded(f, field);
    if (offset > whole) throw offsetPastEnd(f, offset, whole, field);
    return whole - offset;
  }
  return share;
}

/** size=N%: the share of each file from its offset, capped at the file's end, in whole blocks. */
function percentOf(o: JobOptions, f: FileFacts, offset: number, io: number, minBs: number, field: string): number {
  if (o.size === undefined || !('percent' in o.size) || o.size.percent === 100) return io;
  const length = io + offset;
  const part = Math.min(bytesOf(o.size, length, 'size', f.path, `${field}.size`), length - offset);
  return part - (part % minBs);
}

export function fileRegions(o: JobOptions, instance: number, files: readonly FileFacts[], minBs: number, field: string): InstanceRegions {
  const each = shares(o, files.length, minBs);
  const drawn = drawsSizes(o);
  let total = 0;
  const regions = files.map((f, i): FileRegion => {
    const whole = f.exists ? f.sizeBytes : 0;
    const offset = bytesOf(o.offset, whole, 'offset', f.path, `${field}.offset`) +
      instance * bytesOf(o.offset_increment, whole, 'offset_increment', f.path, `${field}.offset_increment`);
    if (o.size !== undefined && 'percent' in o.size && whole <= 0) bytesOf(o.size, whole, 'size', f.path, `${field}.size`);
    const io = percentOf(o, f, offset, ioSizeOf(o, f, offset, each[i], field), minBs, field);
    total += io;
    // Whole blocks only: a region that is not a multiple of the block size loses its tail. Not
    // where sizes are drawn (bssplit, bsrange): fio keeps such a region whole, and its last I/O is
    // drawn until one fits the tail (a sequential bsrange=3k-20k over 16 MiB ends on 16 MiB).
    const bytes = drawn ? io : Math.floor(io / minBs) * minBs;
    if (bytes <= 0) {
      throw new VolbenchError('ETARGET', `the region on ${f.path} is smaller than one block (bs=${minBs})`, {
        field: `${field}.size`,
        path: f.path,
      });
    }
    return { offset, bytes, end: offset + io };
  });
  const size = o.size !== undefined && 'bytes' in o.size ? o.size.bytes : 0;
  // fio: a size over what the files hold (or none) is what they hold.
  const jobBytes = size === 0 || size > total ? total : size;
  return { files: regions, ioBytesPerLoop: ioBytesOf(o, jobBytes, minBs) };
}

function ioBytesOf(o: JobOptions, jobBytes: number, minBs: number): number {
  if (o.io_size === undefined) return jobBytes;
  if ('bytes' in o.io_size) return o.io_size.bytes;
  return Math.floor((jobBytes * o.io_size.percent) / 100 / minBs) * minBs;
}
