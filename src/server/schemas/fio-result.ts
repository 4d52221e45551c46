/**
 * fio 3.33's JSON document, described as far as clients rely on it. Objects stay open
 * (looseObject): the library's report is the contract, and this schema only documents it.
 */
import { z } from 'zod';

import { assertionOutcomeSchema } from './assertion.js';
import { volbenchBurstSchema, volbenchRotationalSchema, volbenchSweepSchema, volbenchUniformitySchema } from './analysis-result.js';
import { named } from './registry.js';

const numberMap = z.record(z.string(), z.number());

const latStats = z.looseObject({
  min: z.number(),
  max: z.number(),
  mean: z.number(),
  stddev: z.number(),
  N: z.number(),
  percentile: numberMap.optional().describe('"99.000000" → ns'),
  bins: numberMap.optional().describe('json+ only: bucket value in ns → count'),
});

const dirStats = named(
  'FioDirectionStats',
  z.looseObject({
    io_bytes: z.number(),
    io_kbytes: z.number(),
    bw_bytes: z.number(),
    bw: z.number().describe('KiB/s'),
    iops: z.number(),
    runtime: z.number().describe('ms'),
    total_ios: z.number(),
    short_ios: z.number(),
    drop_ios: z.number(),
    slat_ns: latStats,
    clat_ns: latStats,
    lat_ns: latStats,
  }),
);

const fioJob = named(
  'FioJob',
  z.looseObject({
    jobname: z.string(),
    groupid: z.number(),
    error: z.number(),
    'job options': z.record(z.string(), z.string()).optional(),
    read: dirStats.optional(),
    write: dirStats.optional(),
    trim: dirStats.optional(),
    job_runtime: z.number(),
    usr_cpu: z.number(),
    sys_cpu: z.number(),
    latency_ns: numberMap,
    latency_us: numberMap,
    latency_ms: numberMap,
  }),
);

const seriesDir = z.object({
  iops: z.number(),
  bw_bytes: z.number(),
  clat_mean_ns: z.number(),
  clat_p99_ns: z.number(),
});

const loopDir = named(
  'VolbenchLoopFigures',
  z
    .looseObject({
      iops: z.number(),
      bw_bytes: z.number(),
      clat_mean_ns: z.number(),
      clat_p99_ns: z.number(),
      lat_mean_ns: z.number(),
    })
    .describe('One direction of one loop of a suite test (or the median of its loops)'),
);

const loopDirs = {
  read: loopDir.optional(),
  write: loopDir.optional(),
  trim: loopDir.optional(),
};

const volbenchJobLoops = named(
  'VolbenchJobLoops',
  z
    .looseObject({
      count: z.int(),
      best: z.int().describe('The loop (1-based) whose fio entry the document holds: the most bytes per second'),
      median: z.looseObject(loopDirs).describe('Median of every loop, per direction'),
      values: z.array(z.looseObject({ loop: z.int(), ...loopDirs })).describe('Each loop, in run order'),
    })
    .describe('Suite runs only: every loop of this test'),
);

const volbenchSuite = named(
  'VolbenchSuite',
  z
    .looseObject({
      name: z.string(),
      file: z.string().describe("The suite's fio job file"),
      loops: z.int().describe('Runs of each test'),
      runs: z.int().describe('fio runs made in all (tests x loops)'),
    })
    .describe('Set when the document is a suite run'),
);

const volbenchJob = z.looseObject({
  jobname: z.string(),
  engine: z.string().describe('Engine that ran after any fallback'),
  cancelled: z.boolean(),
  stuck_ios: z
    .int()
    .optional()
    .describe('I/Os the device never answered: the run gave up on them (cancelled, or 10 s past the runtime); absent when none'),
  buffers: z
    .looseObject({
      bytes: z.int(),
      huge_page_bytes: z
        .int()
        .describe('Bytes of the buffers the kernel backs with transparent huge pages; looked at from 128 KiB blocks on, where it decides whether an I/O reaches the device whole or split'),
      registered: z.boolean().describe('Whether io_uring registered the buffers (fixedbufs: by default for blocks under 128 KiB; fio only when asked)'),
    })
    .optional()
    .describe("The job's I/O buffers, summed over its instances"),
  registered_files: z
    .boolean()
    .optional()
    .describe("Whether io_uring registered the target's file (registerfiles: by default; fio only when asked)"),
  error_message: z.string(),
  error_syscall: z.string(),
  series: z.array(
    z.looseObject({
      t_ms: z.number(),
      dur_ms: z.number(),
      read: seriesDir.optional(),
      write: seriesDir.optional(),
      trim: seriesDir.optional(),
    }),
  ).describe('One point per second: the per-second time series'),
  loops: volbenchJobLoops.optional(),
  tid: z.number().optional().describe("The first instance's thread id (fio's normal output prints it as pid=)"),
  runtime_ns: z.number().optional().describe("The measured period of its longest instance in ns (fio's runtime is whole ms)"),
  laid_out: z.array(z.object({ path: z.string(), from_bytes: z.number(), to_bytes: z.number() }))
    .optional()
    .describe('Files the job created or extended before its I/O (a read job too): their size before and after'),
  notes: z.array(z.string())
    .optional()
    .describe("What the job did otherwise than its options say, in fio's words where fio warns "
      + '(e.g. "Any use of blockalign= turns off randommap"); absent when there is nothing to say'),
  analysis: z.looseObject({ burst: volbenchBurstSchema.optional() })
    .optional()
    .describe("Findings on the job's own series; absent when its series is too short to say anything"),
});

const volbenchTarget = z.looseObject({
  path: z.string(),
  device: z.string().nullable(),
  model: z.string().nullable(),
  serial: z.string().nullable(),
  ebs_volume_id: z.string().nullable(),
  filesystem: z.string().nullable(),
  mount_point: z.string().nullable(),
});

const analysisSections = {
  sweep: volbenchSweepSchema.optional(),
  uniformity: volbenchUniformitySchema.optional(),
  rotational: volbenchRotationalSchema.optional(),
};

export const fioResultSchema = named(
  'FioResult',
  z
    .looseObject({
      'fio version': z.string(),
      timestamp: z.number(),
      timestamp_ms: z.number(),
      time: z.string(),
      'global options': z.record(z.string(), z.string()).optional(),
      jobs: z.array(fioJob),
      disk_util: z.array(z.looseObject({ name: z.string(), util: z.number() })).optional(),
      volbench: z
        .looseObject({
          version: z.string(),
          kernel: z.string(),
          targets: z.array(volbenchTarget),
          jobs: z.array(volbenchJob),
          job_file: z.string()
            .nullable()
            .optional()
            .describe('The jobs that ran as a fio job file (fio option names, [global] then one section per job), '
              + 'with the default target and runtime budget volbench applied: fio and volbench read it to the same jobs. '
              + 'A suite or an analysis holds its runs\' jobs in order, each run after the one before (stonewall). '
              + "Null when a value cannot be written in a job file (a ';' or '#' in a description) or the runs hold more than 4096 jobs"),
          suite: volbenchSuite.optional(),
          assertions: z.array(assertionOutcomeSchema).optional().describe('Set when the run had assertions: their outcomes'),
          ...analysisSections,
        })
        .optional()
        .describe("volbench's own facts: engine, cancel and error per job, per-second series, target identity, " +
          'and for suites and gates the loops, the suite and the assertion outcomes'),
    })
    .describe("fio 3.33's JSON output (the json form: json+ adds bins), plus volbench's own key"),
);
