/**
 * The statistics a Nitro volume keeps about itself: NVMe vendor log page 0xD0, which every EBS
 * volume and instance-store volume answers on a Nitro instance ("Amazon EBS detailed performance
 * statistics"; `nvme amzn stats` and the CloudWatch agent read the same page). Decoded here from
 * its bytes, little-endian and packed:
 *
 *   0     magic u32 (0x3C23B510 EBS, 0xEC2C0D7E instance store), version u32
 *   8     total_read_ops, total_write_ops, total_read_bytes, total_write_bytes,
 *         total_read_time, total_write_time (µs)                                       u64 each
 *   56    ebs_volume_performance_exceeded_iops, ebs_volume_performance_exceeded_tp,
 *         ec2_instance_ebs_performance_exceeded_iops, ec2_instance_ebs_performance_exceeded_tp (µs),
 *         volume_queue_length (point in time)                                          u64 each
 *   96    reserved, 416 bytes
 *   512   read latency histogram: num_bins u64, then 64 × {lower u64, upper u64, count u32, u32}
 *   2056  write latency histogram, the same
 *   3600  num_of_hists u32, hist_io_sizes u32 × 8 (newer pages; per-size histograms follow)
 *
 * A device fact, like the kernel's disk counters beside it (diskstats.ts): it is read from a
 * block device, and the cloud layer only ever sees the deltas a result carries.
 *
 * Counters are u64; JavaScript numbers hold them exactly up to 2^53 (9 PB, or 285 years of µs).
 */
import { VolbenchError } from '../errors.js';
import type { EbsLatencyBin } from '../fio-output/ebs-stats.js';

export const EBS_LOG_PAGE_ID = 0xd0;
export const EBS_PAGE_MAGIC = 0x3c23b510;
export const INSTANCE_STORE_PAGE_MAGIC = 0xec2c0d7e;
/** What a read asks for: the page's base, through its per-size histogram header. */
export const EBS_LOG_PAGE_BYTES = 4096;
/** The least a page must hold: everything through the write latency histogram. */
export const EBS_LOG_PAGE_MIN_BYTES = 3600;

export type EbsPageKind = 'ebs' | 'instance-store';

/** One bin of a latency histogram: I/Os that completed in [lower_us, upper_us). */
export type LatencyBin = EbsLatencyBin;

/** The page's counters, under the layout's names. */
export const EBS_PAGE_COUNTERS = [
  'total_read_ops',
  'total_write_ops',
  'total_read_bytes',
  'total_write_bytes',
  'total_read_time',
  'total_write_time',
  'ebs_volume_performance_exceeded_iops',
  'ebs_volume_performance_exceeded_tp',
  'ec2_instance_ebs_performance_exceeded_iops',
  'ec2_instance_ebs_performance_exceeded_tp',
  'volume_queue_length',
] as const;

export type EbsPageCounter = (typeof EBS_PAGE_COUNTERS)[number];

/** The decoded page: its kind, its counters raw (µs, bytes, counts), its two histograms. */
export type EbsLogPage = {
  page: EbsPageKind;
  magic: number;
  version: number;
} & Record<EbsPageCounter, number> & {
  read_io_latency_histogram: LatencyBin[];
  write_io_latency_histogram: LatencyBin[];
  /** Newer pages: how many per-I/O-size histograms follow the base, and their size bounds (bytes). */
  num_of_hists?: number;
  hist_io_sizes?: number[];
};

const COUNTERS_AT = 8;
const READ_HISTOGRAM_AT = 512;
const WRITE_HISTOGRAM_AT = 2056;
const HISTOGRAM_BINS = 64;
const BIN_BYTES = 24;
const SIZES_AT = 3600;
const IO_SIZES = 8;

function refused(message: string, field: string, accepted: string): VolbenchError {
  return new VolbenchError('EINVALID_VALUE', message, { field, accepted });
}

function hex(n: number): string {
  return `0x${n.toString(16).toUpperCase().padStart(8, '0')}`;
}

function u64(view: DataView, at: number): number {
  return Number(view.getBigUint64(at, true));
}

function histogram(view: DataView, at: number, name: string): LatencyBin[] {
  const bins = view.getBigUint64(at, true);
  if (bins > BigInt(HISTOGRAM_BINS)) {
    throw refused(`the page's ${name} says ${bins} bins at offset ${at}; expected at most ${HISTOGRAM_BINS}`,
      `${name}.num_bins (offset ${at})`, `0 to ${HISTOGRAM_BINS}`);
  }
  const out: LatencyBin[] = [];
  for (let i = 0; i < Number(bins); i++) {
    const bin = at + 8 + i * BIN_BYTES;
    out.push({ lower_us: u64(view, bin), upper_us: u64(view, bin + 8), count: view.getUint32(bin + 16, true) });
  }
  return out;
}

function kindOf(magic: number): EbsPageKind {
  if (magic === EBS_PAGE_MAGIC) return 'ebs';
  if (magic === INSTANCE_STORE_PAGE_MAGIC) return 'instance-store';
  throw refused(`the page's magic at offset 0 is ${hex(magic)}; expected ${hex(EBS_PAGE_MAGIC)} (EBS) or ${hex(INSTANCE_STORE_PAGE_MAGIC)} (instance store)`,
    'magic (offset 0)', `${hex(EBS_PAGE_MAGIC)} or ${hex(INSTANCE_STORE_PAGE_MAGIC)}`);
}

/**
 * Decodes a page read from a device or saved to a file. Refuses (EINVALID_VALUE, naming the
 * offset) a page shorter than 3,600 bytes, an unknown magic, or a histogram of more than 64 bins.
 * Instance store's page is decoded with the same base layout: its exceeded times are the
 * instance's limits on its local storage (the ec2_instance_* fields).
 */
export function decodeEbsLogPage(bytes: Uint8Array): EbsLogPage {
  if (bytes.length < EBS_LOG_PAGE_MIN_BYTES) {
    throw refused(`the page is ${bytes.length} bytes: it ends at offset ${bytes.length}, inside ${bytes.length < 4 ? 'the magic' : regionAt(bytes.length)}; `
      + `expected at least ${EBS_LOG_PAGE_MIN_BYTES.toLocaleString('en-US')} bytes (through the write latency histogram, offsets 2056-3599)`,
    `page (offset ${bytes.length})`, `at least ${EBS_LOG_PAGE_MIN_BYTES} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  const page = kindOf(magic);
  const counters = Object.fromEntries(EBS_PAGE_COUNTERS.map((name, i) => [name, u64(view, COUNTERS_AT + 8 * i)])) as Record<EbsPageCounter, number>;
  const decoded: EbsLogPage = {
    page,
    magic,
    version: view.getUint32(4, true),
    ...counters,
    read_io_latency_histogram: histogram(view, READ_HISTOGRAM_AT, 'read_io_latency_histogram'),
    write_io_latency_histogram: histogram(view, WRITE_HISTOGRAM_AT, 'write_io_latency_histogram'),
  };
  if (bytes.length >= SIZES_AT + 4 * (1 + IO_SIZES)) {
    decoded.num_of_hists = view.getUint32(SIZES_AT, true);
    decoded.hist_io_sizes = Array.from({ length: IO_SIZES }, (_, i) => view.getUint32(SIZES_AT + 4 + 4 * i, true));
  }
  return decoded;
}

/** What a page that ends at `offset` breaks off in, for the refusal. */
function regionAt(offset: number): string {
  if (offset < COUNTERS_AT) return 'the version';
  if (offset < 96) return `${EBS_PAGE_COUNTERS[Math.floor((offset - COUNTERS_AT) / 8)]} (offset ${COUNTERS_AT + 8 * Math.floor((offset - COUNTERS_AT) / 8)})`;
  if (offset < READ_HISTOGRAM_AT) return 'the reserved area (offsets 96-511)';
  if (offset < WRITE_HISTOGRAM_AT) return 'read_io_latency_histogram (offsets 512-2055)';
  return 'write_io_latency_histogram (offsets 2056-3599)';
}
