/**
 * The test seam for EBS statistics: a loop device cannot answer an NVMe admin command, so an
 * emulated volume (the rehearsal's) publishes the log page it would answer in a directory, and
 * VOLBENCH_EMULATED_NVME_DIR names that directory. A development and test switch, never set on a
 * real instance: a page read here is marked `source: "emulated"` in the result.
 *
 * In the directory, per device, keyed by its major:minor (written whole, by rename):
 *   MAJ:MIN.page             the page's bytes, as the device would answer them (4,096)
 *   MAJ:MIN.emulation.json   {"rate": R, "time": T}: the emulation's scale (optional)
 *
 * Whoever can write there decides what a run reports, so the directory is honoured only when it
 * cannot have been written by anyone else: an absolute path, every component a real directory
 * (no symlink), the directory owned by this user and writable by no one else, each parent owned
 * by root or this user and writable by no one else (or sticky, as /tmp is: there others cannot
 * move or remove what is ours). It is then held open, checked to be what was looked at, and
 * every file is opened beneath it, through the held descriptor, never by its full name again.
 */
import { closeSync, constants as fs, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';

import type { CloudEmulation } from '../fio-output/ebs-stats.js';
import { O_PATH } from './anchor.js';

export const EMULATED_NVME_ENV = 'VOLBENCH_EMULATED_NVME_DIR';

/** The sticky bit (Node's fs.constants lacks it). */
const S_ISVTX = 0o1000;

/** A page or a scale file larger than this is not one. */
const MAX_FILE_BYTES = 65536;

/** The seam's directory, held open. */
export interface EmulatedNvmeDir {
  path: string;
  fd: number;
}

export type EmulatedNvmeAnswer = { dir: EmulatedNvmeDir } | { refused: string } | null;

function ownerOk(st: Stats, uid: number, rootToo: boolean): boolean {
  return st.uid === uid || (rootToo && st.uid === 0);
}

/** Writable by group or others, and not sticky. */
function othersMayWrite(st: Stats): boolean {
  return (st.mode & 0o022) !== 0 && (st.mode & S_ISVTX) === 0;
}

/** Why `path` may not be trusted as the seam's directory, or null when it may. */
function distrust(path: string, uid: number): string | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return `${path} does not exist`;
  if (!st.isDirectory()) return `${path} is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'}`;
  if (st.uid !== uid) return `${path} is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  if ((st.mode & 0o022) !== 0) return `${path} is writable by its group or by others (mode ${(st.mode & 0o7777).toString(8)})`;
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const p = lstatSync(dir);
    if (!p.isDirectory()) return `${dir} is a symlink`;
    if (!ownerOk(p, uid, true)) return `${dir} is owned by uid ${p.uid}, neither root nor this user`;
    if (othersMayWrite(p)) return `${dir} is writable by its group or by others and not sticky (mode ${(p.mode & 0o7777).toString(8)})`;
    if (dir === '/') return null;
  }
}

/**
 * The directory VOLBENCH_EMULATED_NVME_DIR names, held open: null when the variable is not set,
 * `refused` (with why) when the directory may not be trusted.
 */
export function openEmulatedNvmeDir(env: NodeJS.ProcessEnv = process.env): EmulatedNvmeAnswer {
  const given = env[EMULATED_NVME_ENV];
  if (given === undefined || given === '') return null;
  const refuse = (why: string) => ({ refused: `${EMULATED_NVME_ENV} is not honoured: ${why}` });
  if (!isAbsolute(given)) return refuse(`${given} is not an absolute path`);
  const path = normalize(given).replace(/(.)\/$/, '$1');
  const uid = process.geteuid?.() ?? -1;
  let why: string | null;
  try {
    why = distrust(path, uid);
  } catch (err) {
    why = (err as Error).message;
  }
  if (why) return refuse(why);
  let fd: number;
  try {
    fd = openSync(path, O_PATH | fs.O_DIRECTORY | fs.O_NOFOLLOW);
  } catch (err) {
    return refuse(`${path} cannot be opened: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  // What was opened is what was looked at: a directory swapped in between is refused.
  const looked = lstatSync(path, { throwIfNoEntry: false });
  const held = fstatSync(fd);
  if (!looked || looked.dev !== held.dev || looked.ino !== held.ino || held.uid !== uid || (held.mode & 0o022) !== 0) {
    closeSync(fd);
    return refuse(`${path} changed while it was being opened`);
  }
  return { dir: { path, fd } };
}

export function closeEmulatedNvmeDir(dir: EmulatedNvmeDir): void {
  try {
    closeSync(dir.fd);
  } catch {
    // Closed already.
  }
}

/**
 * A file beneath the held directory, by its name there (no `/`): null when it is not there.
 * Opened through the held descriptor, the last component not followed if it is a link; it
 * must be a regular file of this user's, writable by no one else, and small.
 */
async function readBeneath(dir: EmulatedNvmeDir, name: string): Promise<Buffer | null> {
  if (name.includes('/') || name === '.' || name === '..') throw new TypeError(`not a name beneath a directory: ${name}`);
  let file: FileHandle;
  try {
    file = await open(join(`/proc/self/fd/${dir.fd}`, name), fs.O_RDONLY | fs.O_NOFOLLOW | fs.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const st = await file.stat();
    const uid = process.geteuid?.() ?? -1;
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o022) !== 0 || st.size > MAX_FILE_BYTES) {
      throw new Error(`${join(dir.path, name)} is not a regular file of this user's, writable by it alone, of at most ${MAX_FILE_BYTES} bytes`);
    }
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await file.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await file.close();
  }
}

/** The page published for the device `majMin` ("7:3"), or null when none is. */
export function readEmulatedPage(dir: EmulatedNvmeDir, majMin: string): Promise<Buffer | null> {
  return readBeneath(dir, `${majMin}.page`);
}

/** The emulation's scale published for the device, or null when none is (or it is not one). */
export async function readEmulation(dir: EmulatedNvmeDir, majMin: string): Promise<CloudEmulation | null> {
  const text = await readBeneath(dir, `${majMin}.emulation.json`);
  if (text === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(text.toString('utf8'));
  } catch {
    return null;
  }
  const o = v as { rate?: unknown; time?: unknown };
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;
  return typeof v === 'object' && v !== null && ok(o.rate) && ok(o.time) ? { rate: o.rate, time: o.time } : null;
}
