/**
 * NVMe log page 0xD0 as a Nitro volume answers it, built from fields: the layout of
 * CLOUD-VOLUMES.md ("EBS NVMe statistics") written out offset by offset, independently of the
 * decoder it checks (src/device/ebs-log-page.ts). Little-endian, packed, 4,096 bytes.
 */
export const EBS_MAGIC = 0x3c23b510;
export const INSTANCE_STORE_MAGIC = 0xec2c0d7e;

export interface PageBin {
  lower_us: number;
  upper_us: number;
  count: number;
}

export interface PageFields {
  magic: number;
  version: number;
  total_read_ops: number;
  total_write_ops: number;
  total_read_bytes: number;
  total_write_bytes: number;
  total_read_time: number;
  total_write_time: number;
  ebs_volume_performance_exceeded_iops: number;
  ebs_volume_performance_exceeded_tp: number;
  ec2_instance_ebs_performance_exceeded_iops: number;
  ec2_instance_ebs_performance_exceeded_tp: number;
  volume_queue_length: number;
  read_io_latency_histogram: PageBin[];
  write_io_latency_histogram: PageBin[];
  num_of_hists: number;
  hist_io_sizes: number[];
}

export const EMPTY_PAGE: PageFields = {
  magic: EBS_MAGIC,
  version: 0,
  total_read_ops: 0,
  total_write_ops: 0,
  total_read_bytes: 0,
  total_write_bytes: 0,
  total_read_time: 0,
  total_write_time: 0,
  ebs_volume_performance_exceeded_iops: 0,
  ebs_volume_performance_exceeded_tp: 0,
  ec2_instance_ebs_performance_exceeded_iops: 0,
  ec2_instance_ebs_performance_exceeded_tp: 0,
  volume_queue_length: 0,
  read_io_latency_histogram: [],
  write_io_latency_histogram: [],
  num_of_hists: 0,
  hist_io_sizes: [0, 0, 0, 0, 0, 0, 0, 0],
};

function writeHistogram(page: Buffer, at: number, bins: PageBin[]): void {
  if (bins.length > 64) throw new RangeError('a page holds 64 bins');
  page.writeBigUInt64LE(BigInt(bins.length), at);
  bins.forEach((b, i) => {
    const o = at + 8 + 24 * i;
    page.writeBigUInt64LE(BigInt(b.lower_us), o);
    page.writeBigUInt64LE(BigInt(b.upper_us), o + 8);
    page.writeUInt32LE(b.count, o + 16);
    page.writeUInt32LE(0, o + 20);
  });
}

/** The page's bytes; `bytes` cuts it short (or pads it) for the refusal tests. */
export function encodeEbsLogPage(given: Partial<PageFields> = {}, bytes = 4096): Buffer {
  const f: PageFields = { ...EMPTY_PAGE, ...given };
  const page = Buffer.alloc(Math.max(bytes, 4096));
  page.writeUInt32LE(f.magic >>> 0, 0);
  page.writeUInt32LE(f.version, 4);
  page.writeBigUInt64LE(BigInt(f.total_read_ops), 8);
  page.writeBigUInt64LE(BigInt(f.total_write_ops), 16);
  page.writeBigUInt64LE(BigInt(f.total_read_bytes), 24);
  page.writeBigUInt64LE(BigInt(f.total_write_bytes), 32);
  page.writeBigUInt64LE(BigInt(f.total_read_time), 40);
  page.writeBigUInt64LE(BigInt(f.total_write_time), 48);
  page.writeBigUInt64LE(BigInt(f.ebs_volume_performance_exceeded_iops), 56);
  page.writeBigUInt64LE(BigInt(f.ebs_volume_performance_exceeded_tp), 64);
  page.writeBigUInt64LE(BigInt(f.ec2_instance_ebs_performance_exceeded_iops), 72);
  page.writeBigUInt64LE(BigInt(f.ec2_instance_ebs_performance_exceeded_tp), 80);
  page.writeBigUInt64LE(BigInt(f.volume_queue_length), 88);
  // 96-511: reserved, zero.
  writeHistogram(page, 512, f.read_io_latency_histogram);
  writeHistogram(page, 2056, f.write_io_latency_histogram);
  page.writeUInt32LE(f.num_of_hists, 3600);
  f.hist_io_sizes.forEach((size, i) => page.writeUInt32LE(size >>> 0, 3604 + 4 * i));
  return page.subarray(0, bytes);
}

/** Power-of-two bins in µs from [0, 16) up: `n` of them, counts 0. */
export function powerOfTwoBins(n: number): PageBin[] {
  return Array.from({ length: n }, (_, i) => ({ lower_us: i === 0 ? 0 : 2 ** (i + 3), upper_us: 2 ** (i + 4), count: 0 }));
}

/** A page whose every field differs from every other, so a field read at the wrong offset shows. */
export const SAMPLE_PAGE: PageFields = {
  ...EMPTY_PAGE,
  version: 1,
  total_read_ops: 1_234_567,
  total_write_ops: 7_654_321,
  total_read_bytes: 5_056_786_432,
  total_write_bytes: 31_352_098_816,
  total_read_time: 617_283_500,
  total_write_time: 9_565_901_250,
  ebs_volume_performance_exceeded_iops: 41_000_000,
  ebs_volume_performance_exceeded_tp: 1_200_000,
  ec2_instance_ebs_performance_exceeded_iops: 77,
  ec2_instance_ebs_performance_exceeded_tp: 350_000,
  volume_queue_length: 3,
  read_io_latency_histogram: powerOfTwoBins(28).map((b, i) => ({ ...b, count: 1000 + i })),
  write_io_latency_histogram: Array.from({ length: 64 }, (_, i) => ({ lower_us: 250 * i, upper_us: 250 * (i + 1), count: 5000 + 3 * i })),
  num_of_hists: 5,
  hist_io_sizes: [4096, 8192, 16384, 32768, 65536, 131072, 262144, 0xffffffff],
};
