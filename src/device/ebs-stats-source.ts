/**
 * Where a disk's EBS statistics come from, and reading them: the NVMe log page 0xD0 of the
 * namespace (or controller) a Nitro EBS or instance-store volume is, read through the kernel's
 * admin passthrough on a thread of the engine's own with a deadline; or, through the test seam
 * (emulated-nvme.ts), the page an emulated volume published for the device.
 *
 * No command goes to a device that is not an Amazon NVMe one by its sysfs model: a vendor log
 * page means what its vendor says, and 0xD0 on another drive is none of ours to read.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { constants as os } from 'node:os';

import type { CloudEmulation } from '../fio-output/ebs-stats.js';
import { EBS_LOG_PAGE_BYTES, EBS_LOG_PAGE_ID } from './ebs-log-page.js';
import { decodeDevT, encodeDevT, sysfsBlockDir, sysfsBlockDirByName } from './devnum.js';
import { EBS_MODEL } from './disk-info.js';
import { EMULATED_NVME_ENV, readEmulatedPage, readEmulation, type EmulatedNvmeDir } from './emulated-nvme.js';
import { readNvmeLogPageOn } from './root-calls.js';
import { SYSFS_ROOT, listSysDir, readSysAttr } from './sysfs.js';

export const INSTANCE_STORE_MODEL = 'Amazon EC2 NVMe Instance Storage';

/** The kernel's own timeout for the command, well inside the call's deadline (root-calls.ts). */
const NVME_COMMAND_TIMEOUT_MS = 1000;

export type EbsSource =
  | { kind: 'nvme'; device: string; path: string; rdev: bigint; charDevice: boolean }
  | { kind: 'emulated'; device: string; majMin: string; dir: EmulatedNvmeDir };

/** Why a disk has no page; `looksLikeEbs`: it is an Amazon NVMe volume (a user expects a page). */
export interface EbsUnavailable {
  unavailable: string;
  looksLikeEbs: boolean;
}

/** A page's bytes as read, when (performance.now(), the read's midpoint) and from where. */
export interface EbsRawPage {
  source: 'nvme' | 'emulated';
  device: string;
  bytes: Buffer;
  atMs: number;
  /** An emulated volume's scale, when it published one. */
  emulation: CloudEmulation | null;
}

export function isUnavailable(v: object): v is EbsUnavailable {
  return 'unavailable' in v;
}

/** Whether sysfs names the device an Amazon EBS or instance-store NVMe volume. */
export function isAmazonModel(model: string | null): boolean {
  return model !== null && (model.startsWith(EBS_MODEL) || model.startsWith(INSTANCE_STORE_MODEL));
}

/** The disk and, while each has exactly one, its slaves: a device-mapper volume on one EBS volume reads that volume's page. */
function diskChain(name: string, sysRoot: string): Array<{ name: string; majMin: string; model: string | null }> {
  const chain = [];
  for (let dev = sysfsBlockDirByName(name, sysRoot); dev !== null && chain.length < 8; ) {
    const model = readSysAttr(join(dev.diskDir, 'device', 'model'));
    chain.push({ name: dev.disk, majMin: `${dev.major}:${dev.minor}`, model });
    const slaves = listSysDir(join(dev.diskDir, 'slaves'));
    dev = slaves.length === 1 ? sysfsBlockDirByName(slaves[0], sysRoot) : null;
  }
  return chain;
}

/**
 * The source of the page for a whole disk (a kernel name, "nvme1n1"): the seam's page for it
 * when `emulated` holds one, else the disk itself when it is an Amazon NVMe namespace.
 */
export async function ebsSourceOfDisk(name: string, emulated: EmulatedNvmeDir | null, sysRoot = SYSFS_ROOT): Promise<EbsSource | EbsUnavailable> {
  const chain = diskChain(name, sysRoot);
  if (chain.length === 0) return { unavailable: `${name} has no block device in sysfs`, looksLikeEbs: false };
  if (emulated) {
    for (const d of chain) {
      if ((await readEmulatedPage(emulated, d.majMin)) !== null) return { kind: 'emulated', device: d.name, majMin: d.majMin, dir: emulated };
    }
  }
  const seam = emulated ? `no page is published for ${chain.map((d) => d.majMin).join(' or ')} in ${emulated.path} (${EMULATED_NVME_ENV}), and ` : '';
  const nvme = chain.find((d) => /^nvme\d+n\d+$/.test(d.name));
  if (!nvme) return { unavailable: `${seam}${name} is not an NVMe device: EBS statistics come from a Nitro instance's NVMe volumes`, looksLikeEbs: false };
  if (!isAmazonModel(nvme.model)) {
    return { unavailable: `${seam}${nvme.name} is not an Amazon EBS or instance-store volume (model ${JSON.stringify(nvme.model ?? '')})`, looksLikeEbs: false };
  }
  const [major, minor] = nvme.majMin.split(':').map(Number);
  return { kind: 'nvme', device: nvme.name, path: `/dev/${nvme.name}`, rdev: encodeDevT({ major, minor }), charDevice: false };
}

/**
 * The source for a path a user names: a block device (a partition reads its disk's page), or
 * an NVMe controller's character device (/dev/nvme1).
 */
export async function ebsSourceOfPath(path: string, emulated: EmulatedNvmeDir | null, sysRoot = SYSFS_ROOT): Promise<EbsSource | EbsUnavailable> {
  let st;
  try {
    st = statSync(path, { bigint: true });
  } catch (err) {
    return { unavailable: `${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, looksLikeEbs: false };
  }
  const { major, minor } = decodeDevT(st.rdev);
  if (st.isBlockDevice()) {
    const dev = sysfsBlockDir(major, minor, sysRoot);
    if (!dev) return { unavailable: `${path} (${major}:${minor}) has no block device in sysfs`, looksLikeEbs: false };
    return ebsSourceOfDisk(dev.disk, emulated, sysRoot);
  }
  if (st.isCharacterDevice()) {
    const dir = join(sysRoot, 'dev', 'char', `${major}:${minor}`);
    if (subsystemOf(dir) !== 'nvme') return { unavailable: `${path} is not an NVMe device`, looksLikeEbs: false };
    const model = readSysAttr(join(dir, 'model'));
    if (!isAmazonModel(model)) return { unavailable: `${path} is not an Amazon EBS or instance-store volume (model ${JSON.stringify(model ?? '')})`, looksLikeEbs: false };
    return { kind: 'nvme', device: path.replace(/^\/dev\//, ''), path, rdev: st.rdev, charDevice: true };
  }
  return { unavailable: `${path} is not a device`, looksLikeEbs: false };
}

/** The subsystem a sysfs device belongs to ("nvme"), or null. */
function subsystemOf(dir: string): string | null {
  try {
    return basename(realpathSync(join(dir, 'subsystem')));
  } catch {
    return null;
  }
}

function errnoName(n: number): string {
  return Object.entries(os.errno).find(([, v]) => v === n)?.[0] ?? `errno ${n}`;
}

/** One line on why the device did not give its page. */
function whyNot(path: string, r: { errno: number; syscall: string; why: string; status: number }): string {
  if (r.status !== 0) {
    return `${path} refused Get Log Page 0x${EBS_LOG_PAGE_ID.toString(16).toUpperCase()} (NVMe status 0x${r.status.toString(16)}): not a Nitro EBS or instance-store volume`;
  }
  if (r.why) return `${path} was not opened: ${r.why}`;
  const name = errnoName(r.errno);
  if (r.errno === os.errno.EACCES || r.errno === os.errno.EPERM) {
    return r.syscall === 'open'
      ? `no privilege: opening ${path} needs read access to the device (root, or the disk group) (${name})`
      : `no privilege: NVMe admin commands on ${path} need root (CAP_SYS_ADMIN) (${name})`;
  }
  if (r.syscall === 'ioctl' && (r.errno === os.errno.ENOTTY || r.errno === os.errno.EINVAL)) return `${path} does not take NVMe admin commands (${name})`;
  return `${path}: ${r.syscall} failed (${name})`;
}

/** Reads the page from its source now; never throws: a failure is an EbsUnavailable. */
export async function readEbsRawPage(source: EbsSource): Promise<EbsRawPage | EbsUnavailable> {
  const started = performance.now();
  const at = () => (started + performance.now()) / 2;
  if (source.kind === 'emulated') {
    try {
      const bytes = await readEmulatedPage(source.dir, source.majMin);
      const atMs = at();
      if (bytes === null) return { unavailable: `the emulated page for ${source.majMin} is gone from ${source.dir.path}`, looksLikeEbs: true };
      return { source: 'emulated', device: source.device, bytes, atMs, emulation: await readEmulation(source.dir, source.majMin) };
    } catch (err) {
      return { unavailable: `the emulated page for ${source.majMin} cannot be read: ${(err as Error).message}`, looksLikeEbs: true };
    }
  }
  try {
    const r = await readNvmeLogPageOn({
      path: source.path, charDevice: source.charDevice, rdev: source.rdev,
      lid: EBS_LOG_PAGE_ID, nsid: 1, bytes: EBS_LOG_PAGE_BYTES, timeoutMs: NVME_COMMAND_TIMEOUT_MS,
    }, source.path);
    const atMs = at();
    if (r.data === null) return { unavailable: whyNot(source.path, r), looksLikeEbs: true };
    return { source: 'nvme', device: source.device, bytes: r.data, atMs, emulation: null };
  } catch (err) {
    return { unavailable: `${source.path} did not give its page: ${(err as Error).message}`, looksLikeEbs: true };
  }
}
