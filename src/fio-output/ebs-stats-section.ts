/**
 * What a Nitro volume's NVMe statistics page (vendor log page 0xD0) said about one job, and the
 * scale of an emulated volume: the contract between the code that reads the page (or publishes
 * an emulated one) and the reports that read the binding limit from it. Every counter is the
 * delta over the job (the page counts since attach); the shares are the exceeded times over the
 * job's elapsed time.
 */
import { z } from 'zod';

const limitsShape = {
  volume_iops: z.number().describe("The volume's provisioned IOPS"),
  volume_throughput: z.number().describe("The volume's throughput"),
  instance_iops: z.number().describe("The instance's EBS IOPS"),
  instance_throughput: z.number().describe("The instance's EBS throughput"),
};

export const ebsLatencyBinSchema = z.object({
  lower_us: z.number(),
  upper_us: z.number(),
  count: z.number().describe('I/Os completed in the bin during the job'),
});

export const volbenchEbsStatsSchema = z.object({
  source: z.enum(['nvme', 'emulated']).describe('nvme: read from the device; emulated: published by a stand-in volume (the rehearsal)'),
  device: z.string().describe('The device the page was read from (/dev/nvme1n1)'),
  page: z.enum(['ebs', 'instance-store']).describe("Which page answered: EBS's (magic 0x3C23B510) or instance store's (0xEC2C0D7E)"),
  elapsed_us: z.number().describe('Time between the two reads of the page'),
  exceeded_us: z.object(limitsShape).describe('µs that demand exceeded each limit during the job'),
  exceeded_share: z.object(limitsShape).describe('exceeded_us / elapsed_us, 0..1'),
  read_ops: z.number(),
  write_ops: z.number(),
  read_bytes: z.number(),
  write_bytes: z.number(),
  read_time_us: z.number().describe('µs spent by the reads completed during the job'),
  write_time_us: z.number(),
  read_io_latency_histogram: z.array(ebsLatencyBinSchema).describe("EBS's own read latency, µs bins"),
  write_io_latency_histogram: z.array(ebsLatencyBinSchema),
}).describe("The volume's own statistics over the job (NVMe log page 0xD0, read before and after): the time each limit was exceeded and EBS's latency");

export const volbenchEmulationSchema = z.object({
  rate: z.number().positive().describe("Factor on every rate of the catalog's model (IOPS, MiB/s, refill)"),
  time: z.number().positive().describe('Factor on every bucket and burst window'),
}).describe('Set for an emulated volume (a rehearsal on one host): the scale it was held to; reports scale entitlements by it');

export type EbsLatencyBin = z.infer<typeof ebsLatencyBinSchema>;
export type VolbenchEbsStats = z.infer<typeof volbenchEbsStatsSchema>;
export type VolbenchEmulation = z.infer<typeof volbenchEmulationSchema>;
