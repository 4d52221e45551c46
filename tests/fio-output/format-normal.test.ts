import { describe, expect, it } from 'vitest';
import { formatNormal } from '../../src/fio-output/index.js';
import { num2str } from '../../src/fio-output/num2str.js';
import { requires } from '../helpers/requires.js';
import { fixtureText, parseResult, splitJsonNormal, withPid } from './samples.js';

requires();

const NORMAL_SAMPLES = [
  // bssplit, ramp_time, percentile_list with 4 decimals, MiB/s bw line
  'reference/08-bssplit-percentile_list-json+normal.txt',
  // randrw numjobs=2 under group_reporting: one entry, jobs=2, "; 0 zone resets"
  'n1-randrw-nj2-group_reporting.jsonplus+normal.txt',
  // write with fsync=4: the fsync/fdatasync/sync_file_range block, IO depths over 100%
  'n2-write-fsync4-psync.json+normal.txt',
  // two entries, kb_base=1000 (SI first, "kB/s"), unified_rw_reporting=both, description
  'n3-randrw-nj2-both-kb1000-desc.json+normal.txt',
  // [global] job file, two stonewall groups, msec latencies
  'n4-jobfile-2groups.json+normal.txt',
  // unified_rw_reporting=mixed, lat percentiles, percentile_list=50:99:99.9
  'n5-randrw-mixed-lat_percentiles.json+normal.txt',
];

describe('formatNormal reproduces fio 3.33 normal output', () => {
  for (const file of NORMAL_SAMPLES) {
    it(file, () => {
      const { json, normal } = splitJsonNormal(fixtureText(file));
      expect(formatNormal(parseResult(json))).toBe(withPid(normal, 0));
    });
  }

  it('prints the pid it is given', () => {
    const { json, normal } = splitJsonNormal(fixtureText('reference/08-bssplit-percentile_list-json+normal.txt'));
    expect(formatNormal(parseResult(json), { pid: 5497 })).toBe(normal);
  });

  it('takes jobs= and the error text from the volbench key', () => {
    const { json } = splitJsonNormal(fixtureText('reference/08-bssplit-percentile_list-json+normal.txt'));
    const result = parseResult(json);
    result.jobs[0].error = 5;
    result.volbench = {
      version: '0.1.0', kernel: '6.18', targets: [],
      jobs: [{ jobname: 'randread-multi', groupid: 0, engine: 'io_uring', target: 0, cancelled: false,
        error_message: 'Input/output error', error_syscall: 'pread', members: 3, series: [] }],
    };
    expect(formatNormal(result).split('\n')[0]).toBe(
      'randread-multi: (groupid=0, jobs=3): err= 5 (Input/output error): pid=0: Sun Nov 22 02:50:20 2026',
    );
  });

  it("prints a failed job with its errno name when fio's error text is not known (sample 09)", () => {
    const result = parseResult(fixtureText('reference/09-randtrim-iouring.json'));
    expect(formatNormal(result).split('\n').slice(0, 2)).toEqual([
      'trim: (groupid=0, jobs=1): err=25 (ENOTTY): pid=0: Sun Nov 22 02:50:20 2026',
      '  cpu          : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=12',
    ]);
  });

  it('prints no block for a job that issued no I/O, but its group header and disks', () => {
    const result = parseResult(fixtureText('reference/09-randtrim-iouring.json'));
    result.jobs[0].trim!.total_ios = 0;
    expect(formatNormal(result)).toBe(
      '\nRun status group 0 (all jobs):\n\nDisk stats (read/write):\n' +
        '  vda: ios=0/0, merge=0/0, ticks=0/0, in_queue=0, util=0.00%\n',
    );
  });
});

describe("num2str, fio's number shortening", () => {
  it('abbreviates with as many decimals as the width allows', () => {
    expect(num2str(23448, 4, 1, false, 'none')).toBe('23.4k');
    expect(num2str(3762382, 6, 1, false, 'none')).toBe('3762.4k');
    expect(num2str(1339959012, 4, 1, true, 'bytepersec')).toBe('1278MiB/s');
    expect(num2str(1339959012, 4, 1, false, 'bytepersec')).toBe('1340MB/s');
    expect(num2str(2681257984, 4, 1, true, 'byte')).toBe('2557MiB');
    expect(num2str(7538, 4, 1, false, 'none')).toBe('7538');
    expect(num2str(62_800_000, 4, 1, false, 'bytepersec')).toBe('62.8MB/s');
  });

  it('prints "0" for everything with no significant figures, as fio does', () => {
    expect(num2str(179493229, 0, 1, true, 'none')).toBe('0');
    expect(num2str(359165952, 0, 1, true, 'byte')).toBe('0B');
  });
});

describe('formatNormal on buildReport output', () => {
  it('prints a volbench result with jobs= from its members', async () => {
    const { buildReport } = await import('../../src/fio-output/index.js');
    const { dir, jobOptions, lat, reportJob, result, runInput } = await import('./inputs.js');
    const busy = () => result({
      dirs: [dir({ ioBytes: 409600, totalIos: 100, runtimeNs: 2_000_400_000, clat: lat(100, 1000, 0, 1000, 1000) }), dir(), dir()],
    });
    const options = jobOptions({ name: 'nj2', numjobs: 2, group_reporting: true });
    const text = formatNormal(buildReport(runInput([reportJob(options, [busy(), busy()])])), { pid: 42 });
    const lines = text.split('\n');
    // The job line ends as fio's, then says what io_uring registered (fio registers nothing unasked).
    expect(lines[0]).toMatch(/^nj2: \(groupid=0, jobs=2\): err= 0: pid=42: \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}; io_uring with registered buffers and files$/);
    expect(lines[1]).toBe('  read: IOPS=99, BW=400KiB/s (409kB/s)(800KiB/2001msec)');
    expect(lines[2]).toBe('    clat (nsec): min=1000, max=1000, avg=1000.00, stdev= 0.00');
    const plain = (job: ReturnType<typeof busy>) => ({ ...job, registeredBuffers: false, registeredFiles: false });
    const unregistered = formatNormal(buildReport(runInput([reportJob(options, [plain(busy()), plain(busy())])])), { pid: 42 });
    expect(unregistered.split('\n')[0]).toMatch(/ \d{4}$/);
    expect(text).toContain('\nRun status group 0 (all jobs):\n   READ: bw=400KiB/s (409kB/s), 400KiB/s-400KiB/s (409kB/s-409kB/s), io=800KiB (819kB), run=2001-2001msec\n');
  });
});
