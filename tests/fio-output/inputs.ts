/** Builders of report-stage inputs (parsed options, raw engine results) for the report tests. */
import type {
  NativeDirResult, NativeJobResult, NativeLatStats, NativeSeriesDir, NativeSeriesPoint,
} from '../../src/engine/native-types.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import type { ReportJob, RunReportInput, TargetIdentity } from '../../src/fio-output/index.js';
import { bucketIndex, emptyHist } from '../../src/fio-output/index.js';

export const DEFAULT_PERCENTILES = [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99];

/** fio's defaults where the report reads them. */
export function jobOptions(over: Partial<JobOptions> = {}): JobOptions {
  return {
    name: 'job', nrfiles: 1, file_service_type: { kind: 'roundrobin', nr: 1 },
    offset: { bytes: 0 }, offset_increment: { bytes: 0 }, rw: 'randread', rwmixread: 50,
    bs: [4096, 4096, 4096], blockalign: [0, 0, 0], iodepth: 1, iodepth_batch_submit: 1,
    iodepth_batch_complete_min: 1, iodepth_batch_complete_max: 0, numjobs: 1, group_reporting: false, stonewall: false, new_group: false,
    runtime_ns: 0, time_based: false, ramp_time_ns: 0, startdelay_ns: 0,
    steadystate: { metric: 'iops', slope: true, limit: 0.01, percent: true }, steadystate_duration_ns: 0,
    steadystate_ramp_time_ns: 0, loops: 1, direct: false,
    sync: 'none', fsync: 0, fdatasync: 0, end_fsync: false, invalidate: true, randrepeat: true,
    randseed: 0x89n, norandommap: false, random_distribution: { kind: 'random' }, rate: [0, 0, 0],
    rate_iops: [0, 0, 0], percentage_random: [100, 100, 100], rate_process: 'linear',
    latency_target_ns: 0, latency_window_ns: 0, latency_percentile: 100, thinktime_ns: 0, thinktime_blocks: 1, refill_buffers: false,
    scramble_buffers: true, zero_buffers: false, buffer_compress_percentage: 0, buffer_compress_chunk: 512,
    verify: 'none', do_verify: true, verify_only: false, percentile_list: [...DEFAULT_PERCENTILES],
    clat_percentiles: true, lat_percentiles: false, slat_percentiles: false, unified_rw_reporting: 'none',
    log_avg_msec: 0, log_offset: false, bwavgtime: 500, iopsavgtime: 500, disable_lat: false, disable_clat: false,
    disable_slat: false, kb_base: 1024, unlink: false, fixedbufs: false, registerfiles: false,
    sqthread_poll: false, hipri: false, cpus_allowed: [], cpus_allowed_policy: 'shared', fallocate: 'native', fadvise_hint: 'pattern', allow_block_write: false,
    ...over,
  };
}

/** Latency accumulators: n samples, their mean, and M2 = (n-1)·stddev². */
export function lat(n: number, mean: number, m2: number, min: number, max: number): NativeLatStats {
  return { n, mean, m2, min, max };
}

export const NO_LAT: NativeLatStats = { n: 0, min: 0, max: 0, mean: 0, m2: 0 };

/** A histogram with `count` samples in the bucket of each `ns`. */
export function hist(entries: Array<[ns: number, count: number]>): Float64Array {
  const h = emptyHist();
  for (const [ns, count] of entries) h[bucketIndex(ns)] += count;
  return h;
}

export function dir(over: Partial<NativeDirResult> = {}): NativeDirResult {
  return {
    ioBytes: 0, totalIos: 0, shortIos: 0, dropIos: 0, runtimeNs: 0,
    slat: NO_LAT, clat: NO_LAT, lat: NO_LAT,
    slatHist: emptyHist(), clatHist: emptyHist(), latHist: emptyHist(),
    bw: NO_LAT, iops: NO_LAT,
    ...over,
  };
}

export function seriesDir(ios = 0, bytes = 0, clatMeanNs = 0, clatP99Ns = 0): NativeSeriesDir {
  return { ios, bytes, clatMeanNs, clatP99Ns };
}

export function point(tMs: number, durMs: number, read = seriesDir(), write = seriesDir()): NativeSeriesPoint {
  return { tMs, durMs, dirs: [read, write, seriesDir()] };
}

export function result(over: Partial<NativeJobResult> = {}): NativeJobResult {
  return {
    jobName: 'job', instance: 0, engine: 'io_uring', error: 0, errorSyscall: '', errorMessage: '',
    cancelled: false, stuckIos: 0, bufferBytes: 131072, hugePageBytes: 0, registeredBuffers: true, registeredFiles: true, startedAtMs: 1795315800000, runtimeNs: 2_000_400_000, elapsedNs: 3_000_000_000, tid: 0, opened: { dev: 0n, ino: 0n, rdev: 0n }, moreOpened: [],
    dirs: [dir(), dir(), dir()],
    sync: { totalIos: 0, lat: NO_LAT, latHist: emptyHist() },
    usrNs: 0, sysNs: 0, ctx: 0, majf: 0, minf: 0,
    iodepthLevel: [0, 0, 0, 0, 0, 0, 0], iodepthSubmit: [0, 0, 0, 0, 0, 0, 0], iodepthComplete: [0, 0, 0, 0, 0, 0, 0],
    latencyDepth: 0,
    series: [],
    ...over,
  };
}

export function reportJob(options: JobOptions, instances: NativeJobResult[], over: Partial<ReportJob> = {}): ReportJob {
  return { jobname: options.name, groupid: 0, options, ownOptions: [['name', options.name]], instances, targetIndex: 0, ...over };
}

export const TARGET: TargetIdentity = {
  path: '/mnt/bench/data.bin', device: 'nvme1n1', disk: 'nvme1n1', model: 'Amazon Elastic Block Store',
  serial: 'vol0123456789abcdef0', ebsVolumeId: 'vol-0123456789abcdef0', vendor: null, sizeBytes: 268435456,
  logicalBlockSize: 512, physicalBlockSize: 4096, rotational: false, scheduler: 'none', filesystem: 'ext4',
  mountPoint: '/mnt/bench', isBlockDevice: false, kernel: '6.18.0',
};

/** A run that started 1 s before its jobs' measured periods (layout). */
export function runInput(jobs: ReportJob[], over: Partial<RunReportInput> = {}): RunReportInput {
  return { startedAtMs: 1795315799000, jobs, diskUtil: [], targets: [TARGET], volbenchVersion: '0.1.0', ...over };
}
