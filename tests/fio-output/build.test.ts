/**
 * buildReport on hand-made engine results whose fio numbers can be worked out on paper: one
 * randread instance with a known histogram, byte count, runtime and samples.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReport, formatJson, formatNormal, type FioResult } from '../../src/fio-output/index.js';
import { requires } from '../helpers/requires.js';
import { DEFAULT_PERCENTILES, dir, hist, jobOptions, lat, point, reportJob, result, runInput, seriesDir } from './inputs.js';

requires();

beforeAll(() => {
  process.env.TZ = 'UTC';
});

/**
 * 100 reads of 4 KiB over 2000.4 ms: clat 60 × ~100 ns, 30 × ~500 µs, 10 × ~5 ms.
 * Bucket values (midpoints): 100 ns → 100; 500000 → 2^18 + 58.5·2^12 = 501760;
 * 5000000 → 2^22 + 12.5·2^16 = 5013504.
 */
function randreadRun() {
  const options = jobOptions({ name: 'randread-qd32', iodepth: 32, description: 'qd32 read' });
  const instance = result({
    dirs: [
      dir({
        ioBytes: 409600, totalIos: 100, runtimeNs: 2_000_400_000,
        slat: lat(100, 3000.5, 99 * 250_000, 2000, 9000),
        clat: lat(100, 650_000, 99 * 1.5e12, 100, 5_000_000),
        lat: lat(100, 653_000.5, 99 * 1.6e12, 3000, 5_010_000),
        clatHist: hist([[100, 60], [500_000, 30], [5_000_000, 10]]),
        bw: lat(4, 180.75, 3 * 600, 150, 210),
        iops: lat(4, 45.25, 3 * 36.75, 37, 52),
      }),
      dir(),
      dir(),
    ],
    usrNs: 75_000_000, sysNs: 674_000_000, ctx: 3603, majf: 0, minf: 42,
    iodepthLevel: [1, 0, 0, 0, 0, 99, 0],
    iodepthSubmit: [0, 2000, 1, 0, 0, 0, 0],
    iodepthComplete: [0, 99, 0, 0, 1, 0, 0],
    series: [
      point(1000, 1000, seriesDir(60, 245760, 400_000, 5_013_504)),
      point(2000, 1000, seriesDir(40, 163840, 1_000_000, 5_013_504)),
    ],
  });
  const job = reportJob(options, [instance], {
    ownOptions: [['name', 'randread-qd32'], ['rw', 'randread'], ['iodepth', '32'], ['filename', '']],
  });
  return runInput([job], {
    diskUtil: [{ name: 'vda', read_ios: 100, write_ios: 2, read_merges: 0, write_merges: 1, read_ticks: 40, write_ticks: 1, in_queue: 41, util: 87.242798 }],
  });
}

describe('buildReport: one job', () => {
  let report: FioResult;
  beforeAll(() => {
    report = buildReport(randreadRun());
  });

  it("stamps the report at the end of the run, in fio's top-level key order", () => {
    expect(Object.keys(report)).toEqual(['fio version', 'timestamp', 'timestamp_ms', 'time', 'jobs', 'disk_util', 'volbench']);
    expect(report['fio version']).toBe('volbench-0.1.0');
    // measured period 1795315800000 + 2000.4 ms
    expect(report.timestamp_ms).toBe(1795315802000);
    expect(report.timestamp).toBe(1795315802);
    expect(report.time).toBe('Sun Nov 22 02:50:02 2026');
  });

  it('has the run elapsed in whole seconds rounded up and no eta once 3 s have passed', () => {
    const job = report.jobs[0];
    expect([job.jobname, job.groupid, job.error, job.eta, job.elapsed]).toEqual(['randread-qd32', 0, 0, 0, 3]);
  });

  it('echoes the job options as strings, dropping empty values as json.c does', () => {
    expect(report.jobs[0]['job options']).toEqual({ name: 'randread-qd32', rw: 'randread', iodepth: '32' });
  });

  it("computes bandwidth with fio's integer arithmetic and iops as a float", () => {
    const read = report.jobs[0].read!;
    expect(read.io_bytes).toBe(409600);
    expect(read.io_kbytes).toBe(400);
    expect(read.runtime).toBe(2001); // 2000.4 ms rounded up to whole ms, as update_runtime
    expect(read.bw_bytes).toBe(204697); // floor(409600·1000 / 2001)
    expect(read.bw).toBe(199); // floor(204697 / 1024)
    expect(read.iops).toBe(100_000 / 2001);
    expect([read.total_ios, read.short_ios, read.drop_ios]).toEqual([100, 0, 0]);
  });

  it('reports latency stats with stddev = sqrt(M2/(n-1)) and clat percentiles from the histogram', () => {
    const read = report.jobs[0].read!;
    expect(read.slat_ns).toEqual({ min: 2000, max: 9000, mean: 3000.5, stddev: 500, N: 100 });
    expect(read.lat_ns).toEqual({ min: 3000, max: 5_010_000, mean: 653_000.5, stddev: Math.sqrt(1.6e12), N: 100 });
    const clat = read.clat_ns;
    expect([clat.min, clat.max, clat.mean, clat.stddev, clat.N]).toEqual([100, 5_000_000, 650_000, Math.sqrt(1.5e12), 100]);
    // 60 samples reach 1..60 %, 90 reach 70..90 %, the rest needs the 5 ms bucket.
    const expected = DEFAULT_PERCENTILES.map((p) => (p <= 60 ? 100 : p <= 90 ? 501_760 : 5_013_504));
    expect(Object.keys(clat.percentile!)).toEqual([
      '1.000000', '5.000000', '10.000000', '20.000000', '30.000000', '40.000000', '50.000000', '60.000000',
      '70.000000', '80.000000', '90.000000', '95.000000', '99.000000', '99.500000', '99.900000', '99.950000', '99.990000',
    ]);
    expect(Object.values(clat.percentile!)).toEqual(expected);
    expect(clat.bins).toEqual({ '100': 60, '501760': 30, '5013504': 10 });
  });

  it('reports bw/iops sample stats and bw_agg against the group aggregate', () => {
    const read = report.jobs[0].read!;
    expect([read.bw_min, read.bw_max, read.bw_mean, read.bw_dev, read.bw_samples]).toEqual([150, 210, 180.75, Math.sqrt(600), 4]);
    // int(180.75)·100 / (204697 / 1024)
    expect(read.bw_agg).toBe((180 * 100) / (204697 / 1024));
    expect([read.iops_min, read.iops_max, read.iops_mean, read.iops_stddev, read.iops_samples]).toEqual([37, 52, 45.25, Math.sqrt(36.75), 4]);
  });

  it('reports unused directions as zeros without percentiles', () => {
    const write = report.jobs[0].write!;
    expect([write.io_bytes, write.bw, write.iops, write.runtime, write.bw_agg, write.bw_samples]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(write.clat_ns).toEqual({ min: 0, max: 0, mean: 0, stddev: 0, N: 0 });
    expect(report.jobs[0].sync).toEqual({ total_ios: 0, lat_ns: { min: 0, max: 0, mean: 0, stddev: 0, N: 0 } });
  });

  it('reports CPU as a share of the job runtime', () => {
    const job = report.jobs[0];
    expect(job.job_runtime).toBe(2000);
    expect([job.usr_cpu, job.sys_cpu, job.ctx, job.majf, job.minf]).toEqual([3.75, 33.7, 3603, 0, 42]);
  });

  it('reports depth distributions in percent with the 0.1 floor for small non-zero shares', () => {
    const job = report.jobs[0];
    expect(job.iodepth_level).toEqual({ '1': 1, '2': 0, '4': 0, '8': 0, '16': 0, '32': 99, '>=64': 0 });
    expect(job.iodepth_submit).toEqual({ '0': 0, '4': (2000 / 2001) * 100, '8': 0.1, '16': 0, '32': 0, '64': 0, '>=64': 0 });
    expect(job.iodepth_complete).toEqual({ '0': 0, '4': 99, '8': 0, '16': 0, '32': 1, '64': 0, '>=64': 0 });
  });

  it('buckets clat into latency_ns/us/ms by each histogram bucket value', () => {
    const job = report.jobs[0];
    expect(job.latency_ns).toEqual({ '2': 0, '4': 0, '10': 0, '20': 0, '50': 0, '100': 0, '250': 60, '500': 0, '750': 0, '1000': 0 });
    expect(job.latency_us).toEqual({ '2': 0, '4': 0, '10': 0, '20': 0, '50': 0, '100': 0, '250': 0, '500': 0, '750': 30, '1000': 0 });
    expect(job.latency_ms).toEqual({
      '2': 0, '4': 0, '10': 10, '20': 0, '50': 0, '100': 0, '250': 0, '500': 0, '750': 0, '1000': 0, '2000': 0, '>=2000': 0,
    });
  });

  it('ends each job with the latency target fields and the description', () => {
    const job = report.jobs[0];
    expect([job.latency_depth, job.latency_target, job.latency_percentile, job.latency_window, job.desc]).toEqual([32, 0, 100, 0, 'qd32 read']);
    expect(Object.keys(job).slice(-5)).toEqual(['latency_depth', 'latency_target', 'latency_percentile', 'latency_window', 'desc']);
  });

  it('copies disk_util in fio key order', () => {
    expect(report.disk_util).toEqual([
      { name: 'vda', read_ios: 100, write_ios: 2, read_merges: 0, write_merges: 1, read_ticks: 40, write_ticks: 1, in_queue: 41, util: 87.242798 },
    ]);
  });

  it('keeps a stacked device\'s aggr_* keys after util, and its slaves\' entries', () => {
    const dm = { name: 'dm-0', read_ios: 10, write_ios: 20, read_merges: 0, write_merges: 0, read_ticks: 5, write_ticks: 6, in_queue: 11, util: 50,
      aggr_read_ios: 5, aggr_write_ios: 10, aggr_read_merges: 0, aggr_write_merge: 1, aggr_read_ticks: 2, aggr_write_ticks: 3, aggr_in_queue: 5, aggr_util: 60 };
    const slave = { name: 'nvme1n1', read_ios: 5, write_ios: 10, read_merges: 0, write_merges: 1, read_ticks: 2, write_ticks: 3, in_queue: 5, util: 60 };
    const stacked = buildReport({ ...randreadRun(), diskUtil: [dm, slave] });
    expect(stacked.disk_util).toEqual([dm, slave]);
    expect(Object.keys(stacked.disk_util![0])).toEqual(Object.keys(dm));
    expect(formatNormal(stacked)).toContain('aggrios=5/10, aggrmerge=0/1, aggrticks=2/3, aggrin_queue=5, aggrutil=60.00%');
  });

  it('adds the volbench key: target identity, engine and per-second series', () => {
    const vb = report.volbench!;
    expect([vb.version, vb.kernel]).toEqual(['0.1.0', '6.18.0']);
    expect(vb.targets[0]).toMatchObject({ path: '/mnt/bench/data.bin', ebs_volume_id: 'vol-0123456789abcdef0', size_bytes: 268435456, mount_point: '/mnt/bench', is_block_device: false });
    expect(vb.jobs).toEqual([{
      jobname: 'randread-qd32', groupid: 0, engine: 'io_uring', target: 0, cancelled: false, buffers: { bytes: 131072, huge_page_bytes: 0, registered: true }, registered_files: true, error_message: '', error_syscall: '', members: 1, tid: 0, runtime_ns: 2_000_400_000,
      series: [
        { t_ms: 1000, dur_ms: 1000, read: { iops: 60, bw_bytes: 245760, clat_mean_ns: 400_000, clat_p99_ns: 5_013_504 } },
        { t_ms: 2000, dur_ms: 1000, read: { iops: 40, bw_bytes: 163840, clat_mean_ns: 1_000_000, clat_p99_ns: 5_013_504 } },
      ],
    }]);
  });

  it('formats as fio JSON text (floats by key, no bins in json)', () => {
    const text = formatJson(report, { plus: false });
    expect(text).toContain('"iops" : 49.975012,\n');
    expect(text).toContain('"bw_agg" : 90.045286,\n');
    expect(text).toContain('"latency_percentile" : 100.000000,\n');
    expect(text).toContain('"99.990000" : 5013504\n');
    expect(text).not.toContain('"bins"');
    expect(formatJson(report, { plus: true })).toContain('"bins" : {\n            "100" : 60,\n            "501760" : 30,');
    expect(JSON.parse(text).volbench.jobs[0].series[0].read.iops).toBe(60);
  });
});

describe('buildReport: runs, failures and options', () => {
  it('puts "global options" between time and jobs and leaves out disk_util when empty', () => {
    const input = randreadRun();
    input.diskUtil = [];
    input.globalOptions = [['direct', '1'], ['ioengine', 'io_uring']];
    const report = buildReport(input);
    expect(Object.keys(report)).toEqual(['fio version', 'timestamp', 'timestamp_ms', 'time', 'global options', 'jobs', 'volbench']);
    expect(report['global options']).toEqual({ direct: '1', ioengine: 'io_uring' });
  });

  it('reports a failed job with its errno and eta 2147483647', () => {
    const options = jobOptions({ name: 'trim', rw: 'randtrim', iodepth: 4 });
    const failed = result({
      error: 25, errorMessage: 'Inappropriate ioctl for device', runtimeNs: 0,
      dirs: [dir(), dir(), dir({ totalIos: 1 })], minf: 12,
    });
    const ok = result();
    const input = runInput([reportJob(options, [failed]), reportJob(jobOptions({ name: 'ok' }), [ok])], { startedAtMs: 1795315790000 });
    const report = buildReport(input);
    expect(report.jobs.map((j) => [j.jobname, j.error, j.eta, j.elapsed])).toEqual([
      ['trim', 25, 2147483647, 12],
      ['ok', 0, 0, 12],
    ]);
    expect(report.jobs[0].job_runtime).toBe(0);
    expect(report.jobs[0].usr_cpu).toBe(0);
    expect(report.volbench!.jobs[0].error_message).toBe('Inappropriate ioctl for device');
  });

  it('reports eta 2147483647 for every job while the run is under 3 s, as fio does', () => {
    const report = buildReport(runInput([reportJob(jobOptions(), [result()])]));
    expect([report.jobs[0].elapsed, report.jobs[0].eta]).toEqual([3, 0]);
    const short = buildReport(runInput([reportJob(jobOptions(), [result({ runtimeNs: 1_000_000_000 })])], { startedAtMs: 1795315800000 }));
    expect([short.jobs[0].elapsed, short.jobs[0].eta]).toEqual([1, 2147483647]);
  });

  it('reports fsync latencies in "sync" with percentiles', () => {
    const options = jobOptions({ name: 'w', rw: 'write', fsync: 1 });
    const instance = result({
      dirs: [dir(), dir({ ioBytes: 40960, totalIos: 10, runtimeNs: 2_000_400_000 }), dir()],
      sync: { totalIos: 10, lat: lat(10, 120_000, 9 * 4e6, 80_000, 200_000), latHist: hist([[100_000, 9], [200_000, 1]]) },
    });
    const sync = buildReport(runInput([reportJob(options, [instance])])).jobs[0].sync!;
    expect(sync.total_ios).toBe(10);
    expect([sync.lat_ns.N, sync.lat_ns.mean, sync.lat_ns.stddev]).toEqual([10, 120_000, 2000]);
    // 100000 ns: msb 16, bucket 2^16 + 33.5·2^10 = 99840; 200000: 2^17 + 33.5·2^11 = 199680
    expect(sync.lat_ns.percentile!['90.000000']).toBe(99_840);
    expect(sync.lat_ns.percentile!['95.000000']).toBe(199_680);
    expect(sync.lat_ns.bins).toEqual({ '99840': 9, '199680': 1 });
  });

  it('reports slat and lat percentiles when those options are on, and clat ones only when on', () => {
    const options = jobOptions({ slat_percentiles: true, lat_percentiles: true, clat_percentiles: false, percentile_list: [50, 99] });
    const d = dir({
      ioBytes: 4096, totalIos: 1, runtimeNs: 1e9,
      slat: lat(1, 1000, 0, 1000, 1000), slatHist: hist([[1000, 1]]),
      clat: lat(1, 2000, 0, 2000, 2000), clatHist: hist([[2000, 1]]),
      lat: lat(1, 3000, 0, 3000, 3000), latHist: hist([[3000, 1]]),
    });
    const read = buildReport(runInput([reportJob(options, [result({ dirs: [d, dir(), dir()] })])])).jobs[0].read!;
    expect(read.slat_ns.percentile).toEqual({ '50.000000': 1004, '99.000000': 1004 });
    expect(read.clat_ns.percentile).toBeUndefined();
    expect(read.lat_ns.percentile).toEqual({ '50.000000': 2992, '99.000000': 2992 });
  });

  it('stops the percentile list at a 0, as fio reads it', () => {
    const options = jobOptions({ percentile_list: [0, 50] });
    const d = dir({ ioBytes: 4096, totalIos: 1, runtimeNs: 1e9, clat: lat(1, 2000, 0, 2000, 2000), clatHist: hist([[2000, 1]]) });
    const read = buildReport(runInput([reportJob(options, [result({ dirs: [d, dir(), dir()] })])])).jobs[0].read!;
    expect(read.clat_ns.percentile).toEqual({});
  });

  it('adds the job index of its target and the engines that ran', () => {
    const second = { ...runInput([]).targets[0], path: '/dev/nvme2n1', isBlockDevice: true };
    const job = reportJob(jobOptions({ numjobs: 2, group_reporting: true }), [result(), result({ engine: 'libaio', cancelled: true })], { targetIndex: 1 });
    const vb = buildReport(runInput([job], { targets: [runInput([]).targets[0], second] })).volbench!;
    expect(vb.targets.map((t) => [t.path, t.is_block_device])).toEqual([['/mnt/bench/data.bin', false], ['/dev/nvme2n1', true]]);
    expect(vb.jobs.map((j) => [j.target, j.engine, j.cancelled, j.members])).toEqual([[1, 'io_uring,libaio', true, 2]]);
  });
});
