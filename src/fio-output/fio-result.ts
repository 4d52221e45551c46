/**
 * fio 3.33's JSON output, plus volbench's own `"volbench"` key: one zod schema per object, and
 * the types inferred from them (the HTTP service documents and checks its answers with the same
 * schemas, made lenient to keys they do not name). Key order in these schemas is fio's order;
 * buildReport creates objects in that order, and formatJson prints them in insertion order.
 */
import { z } from 'zod';

import {
  volbenchJobAnalysisSchema, volbenchRotationalSchema, volbenchSweepSchema, volbenchUniformitySchema,
} from './analysis-sections.js';
import { volbenchEbsStatsSchema, volbenchEmulationSchema } from './ebs-stats-section.js';
import { volbenchEntitlementSchema } from './entitlement-section.js';

const numberMap = z.record(z.string(), z.number());

export const fioLatStatsSchema = z.object({
  min: z.number(),
  max: z.number(),
  mean: z.number(),
  stddev: z.number(),
  N: z.number(),
  percentile: numberMap.optional().describe('"99.900000" → ns; only when that latency\'s percentiles are on and N > 0'),
  bins: numberMap.optional().describe('json+ only: bucket value in ns → count, non-empty buckets'),
});

export const fioDirStatsSchema = z.object({
  io_bytes: z.number(),
  io_kbytes: z.number(),
  bw_bytes: z.number(),
  bw: z.number().describe('KiB/s'),
  iops: z.number(),
  runtime: z.number().describe('ms'),
  total_ios: z.number(),
  short_ios: z.number(),
  drop_ios: z.number(),
  slat_ns: fioLatStatsSchema,
  clat_ns: fioLatStatsSchema,
  lat_ns: fioLatStatsSchema,
  bw_min: z.number(),
  bw_max: z.number(),
  bw_agg: z.number(),
  bw_mean: z.number(),
  bw_dev: z.number(),
  bw_samples: z.number(),
  iops_min: z.number(),
  iops_max: z.number(),
  iops_mean: z.number(),
  iops_stddev: z.number(),
  iops_samples: z.number(),
});

export const fioSyncStatsSchema = z.object({
  total_ios: z.number(),
  lat_ns: fioLatStatsSchema,
});

export const fioSteadyStateSchema = z.object({
  ss: z.string().describe('The criterion as fio spells it: iops_slope:0.100000%, bw:50000000.000000'),
  duration: z.number().describe('The window, seconds'),
  attained: z.union([z.literal(0), z.literal(1)]),
  criterion: z.string().describe("0.853146%, or an absolute criterion's value rounded: 15368172.000000"),
  max_deviation: z.number(),
  slope: z.number(),
  data: z.object({ bw_mean: z.number(), iops_mean: z.number(), iops: z.array(z.number()), bw: z.array(z.number()) }),
}).describe("fio's steady-state block, for jobs with steadystate_duration");

export const fioJobSchema = z.object({
  jobname: z.string(),
  groupid: z.number(),
  error: z.number(),
  eta: z.number(),
  elapsed: z.number(),
  'job options': z.record(z.string(), z.string()).optional(),
  read: fioDirStatsSchema.optional(),
  write: fioDirStatsSchema.optional(),
  trim: fioDirStatsSchema.optional(),
  sync: fioSyncStatsSchema.optional(),
  mixed: fioDirStatsSchema.optional(),
  job_runtime: z.number(),
  usr_cpu: z.number(),
  sys_cpu: z.number(),
  ctx: z.number(),
  majf: z.number(),
  minf: z.number(),
  iodepth_level: numberMap,
  iodepth_submit: numberMap,
  iodepth_complete: numberMap,
  latency_ns: numberMap,
  latency_us: numberMap,
  latency_ms: numberMap,
  latency_depth: z.number().optional(),
  latency_target: z.number().optional(),
  latency_percentile: z.number().optional(),
  latency_window: z.number().optional(),
  desc: z.string().optional(),
  steadystate: fioSteadyStateSchema.optional(),
});

export const volbenchSeriesDirSchema = z.object({
  iops: z.number(),
  bw_bytes: z.number(),
  clat_mean_ns: z.number(),
  clat_p99_ns: z.number(),
});

export const volbenchSeriesPointSchema = z.object({
  t_ms: z.number(),
  dur_ms: z.number(),
  read: volbenchSeriesDirSchema.optional(),
  write: volbenchSeriesDirSchema.optional(),
  trim: volbenchSeriesDirSchema.optional(),
});

export const volbenchLoopDirSchema = z.object({
  iops: z.number(),
  bw_bytes: z.number(),
  clat_mean_ns: z.number(),
  clat_p99_ns: z.number(),
  lat_mean_ns: z.number(),
}).describe('One direction of one loop of a suite test (or the median of its loops)');

const loopDirs = {
  read: volbenchLoopDirSchema.optional(),
  write: volbenchLoopDirSchema.optional(),
  trim: volbenchLoopDirSchema.optional(),
};

export const volbenchLoopValuesSchema = z.object({ loop: z.int().describe('1-based'), ...loopDirs });

export const volbenchJobLoopsSchema = z.object({
  count: z.int(),
  best: z.int().describe('The loop (1-based) whose fio entry the document holds: the most bytes per second'),
  median: z.object(loopDirs).describe('Median of every loop, per direction'),
  values: z.array(volbenchLoopValuesSchema).describe('Each loop, in run order'),
}).describe('Suite runs only: every loop of this test');

/**
 * The version of the document's volbench section and the entitlement contract in it: raised by
 * any change to either. 3: one entitlement shape (no `ratio`, `expected_iops` or
 * `expected_bw_bytes`; `bound_by_source`, per-direction shares), EBS statistics per job, an
 * emulated volume's scale. Absent: written before the field existed.
 */
export const VOLBENCH_SCHEMA_VERSION = 3;

export const volbenchJobSchema = z.object({
  jobname: z.string(),
  groupid: z.number(),
  engine: z.string().describe('Engine that ran after any fallback; several joined by "," when instances differ'),
  target: z.number().describe('Index into volbench.targets'),
  cancelled: z.boolean(),
  stuck_ios: z.int().optional()
    .describe('I/Os the device never answered: the run gave up on them (cancelled, or 10 s past the runtime); absent when none'),
  buffers: z.object({
    bytes: z.int(),
    huge_page_bytes: z.int()
      .describe('Bytes of the buffers the kernel backs with transparent huge pages; looked at from 128 KiB blocks on, where it decides whether an I/O reaches the device whole or split'),
    registered: z.boolean().describe('Whether io_uring registered the buffers (fixedbufs: by default for blocks under 128 KiB; fio only when asked)'),
  }).optional().describe("The job's I/O buffers, summed over its instances; absent from results stored before volbench reported them"),
  registered_files: z.boolean().optional()
    .describe("Whether io_uring registered the target's file (registerfiles: by default; fio only when asked). "
      + 'Registered buffers and files save the kernel a page pinning and a file lookup per I/O; the normal text\'s job line says so. '
      + 'Absent from results stored before volbench reported it'),
  error_message: z.string(),
  error_syscall: z.string().describe('The system call that failed ("pwrite", "io_uring_enter", "verify"), or ""'),
  members: z.number().describe('Job instances summed into this entry: fio\'s "jobs=" in its normal output'),
  tid: z.number().optional().describe("The first instance's thread id (fio's normal output prints it as pid=; 0: none ran)"),
  runtime_ns: z.number().optional().describe("The measured period of its longest instance in ns (fio's runtime is whole ms)"),
  laid_out: z.array(z.object({ path: z.string(), from_bytes: z.number(), to_bytes: z.number() })).optional()
    .describe('Files the job created or extended before its I/O (a read job too): their size before and after'),
  notes: z.array(z.string()).optional()
    .describe("What the job did otherwise than its options say, in fio's words where fio warns "
      + '(e.g. "Any use of blockalign= turns off randommap"); absent when there is nothing to say'),
  series: z.array(volbenchSeriesPointSchema).describe('One point per interval: the per-second time series'),
  loops: volbenchJobLoopsSchema.optional(),
  entitlement: volbenchEntitlementSchema.optional().describe('Given the volume (--volume): what it should deliver to this job, and what it did'),
  analysis: volbenchJobAnalysisSchema.optional(),
  ebs_stats: volbenchEbsStatsSchema.optional()
    .describe("Where the volume answers NVMe log page 0xD0 (EBS on Nitro, or an emulated volume): its statistics over the job"),
});

export const volbenchPriceSchema = z.object({
  usd_per_month: z.number(),
  as_of: z.string(),
  source: z.string(),
  region_used: z.string().optional().describe("Set when the price is another region's, used for want of this one's (a fleet's estimate)"),
  cost_scope: z.enum(['volume', 'total']).optional().describe("What usd_per_month covers: the volume alone, or with the instance's share (total)"),
  basis: z.object({
    kind: z.enum(['730h', 'calendar']),
    hours_per_month: z.number(),
    month: z.string().optional(),
  }).optional().describe("How long a month is: AWS's 730 hours, or a calendar month's real length"),
  confidence: z.enum(['H', 'M', 'L']).optional().describe("H: the provider's page was read; M: a secondary or remembered source; L: unverified"),
}).describe("The volume's monthly price in the region when the run was made, from the prices in use");

export const volbenchCloudSchema = z.object({
  provider: z.string(),
  region: z.string().optional(),
  availability_zone: z.string().optional(),
  instance_type: z.string().optional(),
  instance_id: z.string().optional().describe('The instance the run measured on (a fleet member\'s, as EC2 describes it)'),
  image_id: z.string().optional().describe('Its AMI'),
  catalog_as_of: z.object({ volumes: z.string(), instances: z.string(), instance_prices: z.string() }).optional()
    .describe('When the catalog\'s volume models, instance limits and instance prices were read'),
  fleet: z.object({ id: z.string(), label: z.string() }).optional().describe('The fleet and its member\'s label'),
  volume: z.object({
    id: z.string().optional(),
    type: z.string(),
    size_gib: z.number(),
    iops: z.number().optional(),
    throughput_mibps: z.number().optional(),
  }).optional(),
  price: volbenchPriceSchema.optional(),
  emulation: volbenchEmulationSchema.optional(),
}).describe('The volume and instance a run measured (--volume, --instance, or what AWS says)');

export const volbenchSuiteTestSchema = z.object({
  jobs: z.array(z.string()).describe('Job names of the test'),
  runs: z.int().describe('Its runs (loops) made'),
  wall_ms: z.number().describe('Wall time of all its runs, layouts included'),
}).describe('One test of a suite run');

export const volbenchSuiteInfoSchema = z.object({
  name: z.string(),
  file: z.string().describe("The suite's fio job file"),
  loops: z.int().describe('Runs of each test; the document holds the best'),
  runs: z.int().describe('fio runs made in all (tests x loops)'),
  wall_ms: z.number().optional().describe('Wall time of the whole suite; absent from results stored before volbench reported it'),
  tests: z.array(volbenchSuiteTestSchema).optional().describe('Each test in order, with its wall time; absent as wall_ms'),
}).describe('Set when the document is a suite run');

export const volbenchAssertionSchema = z.object({
  expr: z.string().describe('The assertion as given'),
  job: z.string(),
  dir: z.enum(['read', 'write', 'trim', 'sync', 'mixed']).nullable().describe('null for error, which is per job'),
  metric: z.string().describe('Canonical metric name: iops, bw, io_bytes, error, clat_ns.p99, lat_ns.mean, ...'),
  op: z.enum(['>=', '<=', '>', '<', '==', '!=']),
  wanted: z.number().describe('In unit'),
  measured: z.number().nullable().describe('In unit; null when the result lacks the job or the metric'),
  passed: z.boolean(),
  unit: z.string().describe('IOPS, B/s, B, ns or errno'),
  message: z.string().describe('Measured against wanted, in the unit the assertion was written in'),
}).describe('One assertion judged on the result');

export const volbenchTargetSchema = z.object({
  path: z.string(),
  device: z.string().nullable(),
  disk: z.string().nullable(),
  model: z.string().nullable(),
  serial: z.string().nullable(),
  ebs_volume_id: z.string().nullable(),
  vendor: z.string().nullable(),
  size_bytes: z.number(),
  logical_block_size: z.number(),
  physical_block_size: z.number(),
  rotational: z.boolean().nullable(),
  scheduler: z.string().nullable(),
  filesystem: z.string().nullable(),
  mount_point: z.string().nullable(),
  is_block_device: z.boolean(),
  kernel: z.string(),
}).describe('A target as identified before the run: device, model, EBS volume, filesystem');

export const volbenchSectionSchema = z.object({
  version: z.string(),
  schema_version: z.int().optional().describe('The shape of this section (VOLBENCH_SCHEMA_VERSION): raised with any change (CHANGELOG.md says what changed); absent before 2'),
  kernel: z.string(),
  targets: z.array(volbenchTargetSchema),
  jobs: z.array(volbenchJobSchema).describe('One per entry of jobs, same order'),
  job_file: z.string().nullable().optional()
    .describe('The jobs that ran as a fio job file (fio option names, [global] then one section per job), '
      + 'with the default target and runtime budget volbench applied: fio and volbench read it to the same jobs. '
      + 'A suite or an analysis holds its runs\' jobs in order, each run after the one before (stonewall). '
      + "Null when a value cannot be written in a job file (a ';' or '#' in a description) or the runs hold more than 4096 jobs"),
  suite: volbenchSuiteInfoSchema.optional(),
  assertions: z.array(volbenchAssertionSchema).optional().describe('Set when the run had assertions: their outcomes'),
  sweep: volbenchSweepSchema.optional(),
  uniformity: volbenchUniformitySchema.optional(),
  rotational: volbenchRotationalSchema.optional(),
  cloud: volbenchCloudSchema.optional(),
  ebs_stats_unavailable: z.string().optional()
    .describe("Why no job carries ebs_stats (not Nitro, not EBS, no privilege): said once per result"),
}).describe("volbench's own facts: engine, cancel and error per job, per-second series, target identity, " +
  'and for suites, gates, analyses and cloud volumes what they add');

export const diskUtilSchema = z.object({
  name: z.string(),
  read_ios: z.number(),
  write_ios: z.number(),
  read_merges: z.number(),
  write_merges: z.number(),
  read_ticks: z.number(),
  write_ticks: z.number(),
  in_queue: z.number(),
  util: z.number(),
  // Only for a device built on others (device-mapper, md), in fio's key order after `util`: the
  // mean of its slaves' counters (integer division, as fio does) and the highest slave util.
  // fio spells the merge key without an "s": `aggr_write_merge`.
  aggr_read_ios: z.number().optional(),
  aggr_write_ios: z.number().optional(),
  aggr_read_merges: z.number().optional(),
  aggr_write_merge: z.number().optional(),
  aggr_read_ticks: z.number().optional(),
  aggr_write_ticks: z.number().optional(),
  aggr_in_queue: z.number().optional(),
  aggr_util: z.number().optional(),
}).describe("fio's disk_util entry, from /sys/block/<dev>/stat deltas over the run");

/** fio's JSON document as fio prints it; the formatters accept it with or without "volbench". */
export const fioJsonSchema = z.object({
  'fio version': z.string(),
  timestamp: z.number(),
  timestamp_ms: z.number(),
  time: z.string(),
  'global options': z.record(z.string(), z.string()).optional(),
  jobs: z.array(fioJobSchema),
  disk_util: z.array(diskUtilSchema).optional(),
  volbench: volbenchSectionSchema.optional().describe("volbench's own key; absent in fio's output"),
});

/** What buildReport returns: fio's document plus the "volbench" key, always present. */
export const fioResultSchema = fioJsonSchema.extend({ volbench: volbenchSectionSchema })
  .describe("fio 3.33's JSON output (the json form: json+ adds bins), plus volbench's own key");

export type FioLatStats = z.infer<typeof fioLatStatsSchema>;
export type FioDirStats = z.infer<typeof fioDirStatsSchema>;
export type FioSyncStats = z.infer<typeof fioSyncStatsSchema>;
export type FioSteadyState = z.infer<typeof fioSteadyStateSchema>;
export type FioJob = z.infer<typeof fioJobSchema>;
export type VolbenchSeriesDir = z.infer<typeof volbenchSeriesDirSchema>;
export type VolbenchSeriesPoint = z.infer<typeof volbenchSeriesPointSchema>;
export type VolbenchLoopDir = z.infer<typeof volbenchLoopDirSchema>;
export type VolbenchLoopValues = z.infer<typeof volbenchLoopValuesSchema>;
export type VolbenchJobLoops = z.infer<typeof volbenchJobLoopsSchema>;
export type { VolbenchEntitlement } from './entitlement-section.js';
export type VolbenchJob = z.infer<typeof volbenchJobSchema>;
export type VolbenchPrice = z.infer<typeof volbenchPriceSchema>;
export type VolbenchCloud = z.infer<typeof volbenchCloudSchema>;
export type VolbenchSuiteInfo = z.infer<typeof volbenchSuiteInfoSchema>;
export type VolbenchSuiteTest = z.infer<typeof volbenchSuiteTestSchema>;
export type VolbenchAssertion = z.infer<typeof volbenchAssertionSchema>;
export type VolbenchTarget = z.infer<typeof volbenchTargetSchema>;
export type VolbenchSection = z.infer<typeof volbenchSectionSchema>;
export type DiskUtil = z.infer<typeof diskUtilSchema>;
export type FioJson = z.infer<typeof fioJsonSchema>;
export type FioResult = z.infer<typeof fioResultSchema>;
