/**
 * parseSpec: the JSON form to per-job options. Defaults, aliases, [global] merging, the same job
 * from JSON, a job file and a command line, and errors that name the field and what it accepts.
 */
import { describe, expect, it } from 'vitest';

import { checkSpecBounds, parseFioArgs, parseJobFile, parseSpec } from '../../src/jobspec/index.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

requires();

const one = (options: Record<string, string | number | boolean>): JobOptions =>
  parseSpec({ jobs: [{ name: 'j', ...options }] }).jobs[0].options;

describe('defaults', () => {
  it("are fio's, except ioengine (auto)", () => {
    const expected: JobOptions = {
      name: 'j', nrfiles: 1, file_service_type: { kind: 'roundrobin', nr: 1 },
      offset: { bytes: 0 }, offset_increment: { bytes: 0 }, rw: 'read', rwmixread: 50,
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
      verify: 'none', do_verify: true, verify_only: false,
      percentile_list: [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99],
      clat_percentiles: true, lat_percentiles: false, slat_percentiles: false, unified_rw_reporting: 'none',
      log_avg_msec: 0, log_offset: false, bwavgtime: 500, iopsavgtime: 500, disable_lat: false, disable_clat: false,
      disable_slat: false, kb_base: 1024, unlink: false, sqthread_poll: false, hipri: false, cpus_allowed: [], cpus_allowed_policy: 'shared',
      fallocate: 'native', fadvise_hint: 'pattern', allow_block_write: false,
    };
    expect(one({})).toEqual(expected);
  });

  it('leave unset what depends on the target or another option', () => {
    const o = one({});
    for (const key of ['size', 'filesize', 'io_size', 'filename', 'directory', 'bssplit', 'ioengine', 'fixedbufs',
      'registerfiles', 'write_bw_log', 'description'] as const) {
      expect(o[key]).toBeUndefined();
    }
  });
});

describe('the same job three ways', () => {
  const json = {
    global: { ioengine: 'io_uring', size: '256M', direct: '1', runtime: '2', time_based: true },
    jobs: [{ name: 'randread', rw: 'randread', bs: '4k', iodepth: '32', filename: '/mnt/bench/data.bin' }],
  };
  const jobFile = [
    '[global]', 'ioengine=io_uring', 'size=256M', 'direct=1', 'runtime=2', 'time_based', '',
    '[randread]', 'name=randread', 'rw=randread', 'bs=4k', 'iodepth=32', 'filename=/mnt/bench/data.bin',
  ].join('\n');
  const argv = ['--ioengine=io_uring', '--size=256M', '--direct=1', '--runtime=2', '--time_based',
    '--name=randread', '--rw=randread', '--bs=4k', '--iodepth=32', '--filename=/mnt/bench/data.bin'];

  it('JSON, a job file and CLI flags give the same ParsedSpec', () => {
    const fromJson = parseSpec(json);
    expect(parseSpec(parseJobFile(jobFile))).toEqual(fromJson);
    expect(parseSpec(parseFioArgs(argv).spec)).toEqual(fromJson);
    expect(fromJson.jobs[0].options).toMatchObject({
      rw: 'randread', bs: [4096, 4096, 4096], iodepth: 32, size: { bytes: 268435456 }, direct: true,
      runtime_ns: 2e9, time_based: true, ioengine: 'io_uring', filename: ['/mnt/bench/data.bin'],
    });
  });

  it('JSON numbers and booleans mean what their text means', () => {
    const texts = parseSpec({ jobs: [{ name: 'a', iodepth: '32', direct: '1', time_based: '1' }] }).jobs[0].options;
    const typed = parseSpec({ jobs: [{ name: 'a', iodepth: 32, direct: true, time_based: true }] }).jobs[0].options;
    expect(typed).toEqual(texts);
  });
});

describe('merging [global]', () => {
  it("a job's own option overrides global, other global options carry over", () => {
    const parsed = parseSpec({ global: { bs: '8k', iodepth: 4 }, jobs: [{ name: 'a', iodepth: 16 }, { name: 'b' }] });
    expect(parsed.jobs.map((j) => [j.options.bs[0], j.options.iodepth])).toEqual([[8192, 16], [8192, 4]]);
    expect(parsed.globalOptions).toEqual([['bs', '8k'], ['iodepth', '4']]);
    expect(parsed.jobs[1].ownOptions).toEqual([['name', 'b']]);
  });

  it('a name in global names the jobs that have none', () => {
    expect(parseSpec({ global: { name: 'g' }, jobs: [{}] }).jobs[0].options.name).toBe('g');
  });

  it('a bare write_bw_log logs under the job name, in global too', () => {
    const parsed = parseSpec({ global: { write_bw_log: true }, jobs: [{ name: 'a' }, { name: 'b', write_bw_log: 'x' }] });
    expect(parsed.jobs.map((j) => j.options.write_bw_log)).toEqual(['a', 'x']);
  });

  it("a job's problems come before [global]'s values are read, and a bad [global] value names global", () => {
    expect(errorOf(() => parseSpec({ global: { bs: 'x' }, jobs: [{ name: 'a', bogus: 1 }] })).field).toBe('jobs[0].bogus');
    expect(errorOf(() => parseSpec({ global: { bs: 'x' }, jobs: [{ name: 'a' }] })).field).toBe('global.bs');
  });

  /*
   * Regression: [global] was parsed again for every job, and each job's options deep-copied with
   * structuredClone: 4096 jobs (fio's most) under a [global] with a 64-entry bssplit took a
   * second. Expected: [global] is parsed once and its values shared, so the spec parses in time
   * linear in its size.
   */
  it('4096 jobs under a large [global] parse it once, in linear time', () => {
    const split = Array.from({ length: 64 }, (_, i) => `${(i + 1) * 512}/1`).join(':');
    const global = {
      filename: `/tmp/${'a\\:'.repeat(1300)}`, bssplit: `${split},${split},${split}`,
      percentile_list: Array.from({ length: 20 }, (_, i) => `${50 + i * 2.5}`).join(':'), write_bw_log: true,
    };
    const jobs = Array.from({ length: 4096 }, (_, i) => ({ name: `j${i}` }));
    let parsed: ReturnType<typeof parseSpec> | undefined;
    const { ms } = timed(() => (parsed = parseSpec({ global, jobs })));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(parsed!.jobs[4095].options).toMatchObject({ name: 'j4095', write_bw_log: 'j4095' });
    expect(parsed!.jobs[4095].options.bssplit![2]).toHaveLength(64);
  });
});

describe('aliases and inverse options', () => {
  it.each([
    ['readwrite', 'randrw', 'rw', 'randrw'], ['blocksize', '8k', 'bs', [8192, 8192, 8192]],
    ['iodepth_batch_submit', '8', 'iodepth_batch_submit', 8], ['iodepth_batch', '8', 'iodepth_batch_submit', 8],
    ['iodepth_batch_complete', '2', 'iodepth_batch_complete_min', 2], ['io_limit', '1g', 'io_size', { bytes: 1073741824 }],
    ['wait_for_previous', true, 'stonewall', true], ['timeout', '30', 'runtime_ns', 30e9],
    ['fileoffset', '1m', 'offset', { bytes: 1048576 }], ['ba', '4k', 'blockalign', [4096, 4096, 4096]],
  ] as const)('%s=%s fills %s', (name, value, field, expected) => {
    expect(one({ [name]: value })[field]).toEqual(expected);
  });

  it('rw=readwrite is rw', () => {
    expect(one({ rw: 'readwrite' }).rw).toBe('rw');
  });

  it('buffered is the inverse of direct, and the later of the two wins across sections', () => {
    expect(one({ buffered: 0 }).direct).toBe(true);
    expect(one({ buffered: 1 }).direct).toBe(false);
    expect(parseSpec({ global: { direct: 1 }, jobs: [{ name: 'a', buffered: 1 }] }).jobs[0].options.direct).toBe(false);
  });

  it('rwmixwrite sets rwmixread to the rest', () => {
    expect(one({ rwmixwrite: 30 }).rwmixread).toBe(70);
    expect(parseSpec({ global: { rwmixread: 90 }, jobs: [{ name: 'a', rwmixwrite: 30 }] }).jobs[0].options.rwmixread).toBe(70);
  });
});

describe('values', () => {
  it.each([
    ['runtime', '1m', 'runtime_ns', 60e9], ['ramp_time', '500ms', 'ramp_time_ns', 0.5e9],
    ['startdelay', '2', 'startdelay_ns', 2e9], ['thinktime', '100', 'thinktime_ns', 100_000],
    ['thinktime', '1ms', 'thinktime_ns', 1e6], ['size', '50%', 'size', { percent: 50 }],
    ['offset', '10%', 'offset', { percent: 10 }], ['offset_increment', '1g', 'offset_increment', { bytes: 1073741824 }],
    ['filesize', '1m', 'filesize', 1048576], ['randseed', '0xffffffffffffffff', 'randseed', 18446744073709551615n],
    ['sync', '1', 'sync', 'sync'], ['sync', 'dsync', 'sync', 'dsync'], ['sync', '0', 'sync', 'none'],
    ['fallocate', '1', 'fallocate', 'posix'], ['fallocate', 'keep', 'fallocate', 'keep'], ['fallocate', '0', 'fallocate', 'none'],
    ['fadvise_hint', '0', 'fadvise_hint', 'none'], ['fadvise_hint', '1', 'fadvise_hint', 'pattern'],
    ['fadvise_hint', 'random', 'fadvise_hint', 'random'], ['fadvise_hint', 'sequential', 'fadvise_hint', 'sequential'],
    ['unified_rw_reporting', '2', 'unified_rw_reporting', 'both'], ['unified_rw_reporting', 'mixed', 'unified_rw_reporting', 'mixed'],
    ['unified_rw_reporting', '0', 'unified_rw_reporting', 'none'], ['verify', 'crc32c', 'verify', 'crc32c'],
    ['verify', 'crc32c-intel', 'verify', 'crc32c'], ['verify', '0', 'verify', 'none'], ['verify', 'none', 'verify', 'none'],
    ['ioengine', 'libaio', 'ioengine', 'libaio'], ['ioengine', 'null', 'ioengine', 'null'], ['kb_base', '1000', 'kb_base', 1000],
    ['loops', '0', 'loops', 1], ['iodepth', '1k', 'iodepth', 1024], ['fixedbufs', true, 'fixedbufs', true],
    ['fixedbufs', '0', 'fixedbufs', false], ['sqthread_poll', true, 'sqthread_poll', true],
    ['write_lat_log', 'lat', 'write_lat_log', 'lat'], ['description', 'hello world', 'description', 'hello world'],
    ['filename', 'a\\:b', 'filename', ['a:b']], ['filename', '/a:b\\:c::d', 'filename', ['/a', 'b:c', 'd']],
    ['directory', '/x:/y', 'directory', ['/x', '/y']], ['nr_files', '4', 'nrfiles', 4],
    ['file_service_type', 'random:8', 'file_service_type', { kind: 'random', nr: 8 }],
    ['file_service_type', 'sequential', 'file_service_type', { kind: 'sequential', nr: 1 }], ['random_distribution', 'zipf:1.2', 'random_distribution', { kind: 'zipf', theta: 1.2 }],
  ] as const)('%s=%s fills %s', (name, value, field, expected) => {
    expect(one({ [name]: value })[field]).toEqual(expected);
  });
});

describe('errors name the field and what it accepts', () => {
  it('an unknown option suggests the closest name', () => {
    const err = errorOf(() => parseSpec({ jobs: [{ name: 'a', iodepht: 4 }] }));
    expect(err.code).toBe('EUNKNOWN_OPTION');
    expect(err.message).toBe("unknown option 'iodepht' in jobs[0]; did you mean 'iodepth'?");
    expect(err.field).toBe('jobs[0].iodepht');
    expect(err.accepted).toMatch(/iodepth/);
  });

  it('an unknown global option says so, and a hopeless one gets no suggestion', () => {
    const err = errorOf(() => parseSpec({ global: { blocksiz: '4k' }, jobs: [{ name: 'a' }] }));
    expect(err.message).toBe("unknown option 'blocksiz' in global; did you mean 'blocksize'?");
    expect(err.field).toBe('global.blocksiz');
    expect(errorOf(() => parseSpec({ jobs: [{ name: 'a', qqqqqqqq: 1 }] })).message).toBe("unknown option 'qqqqqqqq' in jobs[0]");
  });

  /*
   * Regression: "did you mean" measured the edit distance of the typed name to all 424 option
   * names, so a 900,000-character name blocked the event loop for 21 s (100,000: 2.3 s).
   * Expected: no option name is over 64 characters, so a longer one is refused at once as unknown,
   * without a suggestion, and shown cut short in the message and the field.
   */
  it('an option name over 64 characters is refused at once, without a suggestion, shown cut short', () => {
    const name = 'iodepth'.repeat(15_000);
    const { ms, error } = timed(() => parseSpec({ jobs: [{ name: 'a', [name]: 1 }] }));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error?.code).toBe('EUNKNOWN_OPTION');
    expect(error?.field).toBe(`jobs[0].${name.slice(0, 64)}…`);
    expect(error?.message).toMatch(/105000 characters long, and no option name is longer than 64/);
    expect(error?.message).not.toMatch(/did you mean/);
    expect(error?.accepted).toMatch(/names of at most 64 characters/);
    expect(JSON.stringify(error).length).toBeLessThan(4000);
  });

  it('a misspelt name of up to 64 characters still gets its suggestion', () => {
    const typed = 'iodepth_batch_complete_minn';
    expect(errorOf(() => parseSpec({ jobs: [{ name: 'a', [typed]: 1 }] })).message).toMatch(/did you mean 'iodepth_batch_complete_min'/);
    expect(errorOf(() => parseSpec({ jobs: [{ name: 'a', ['x'.repeat(64)]: 1 }] })).field).toBe(`jobs[0].${'x'.repeat(64)}`);
  });

  /*
   * A value is read by a parser of its own; the longest any option takes is a path (PATH_MAX).
   * Expected: a longer value is refused before any parser reads it, naming the option.
   */
  it('a value over 4096 characters is refused before it is read, naming the option and the limit', () => {
    const { ms, error } = timed(() => parseSpec({ jobs: [{ name: 'a', bs: '1'.repeat(900_000) }] }));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].bs' });
    expect(error?.message).toBe('jobs[0].bs: the value is 900000 characters long, more than 4096');
    expect(error?.accepted).toMatch(/at most 4096 characters$/);
    expect(errorOf(() => parseSpec({ global: { description: 'd'.repeat(4097) }, jobs: [{ name: 'a' }] })).field).toBe('global.description');
    expect(one({ filename: `/${'f'.repeat(4095)}` }).filename?.[0]).toHaveLength(4096);
  });

  it('a close name volbench lacks but fio has is suggested too', () => {
    expect(errorOf(() => parseSpec({ jobs: [{ name: 'a', gtod_reduc: 1 }] })).message).toMatch(/did you mean 'gtod_reduce'/);
  });

  it('a fio option volbench does not support is EUNSUPPORTED_OPTION', () => {
    const err = errorOf(() => parseSpec({ jobs: [{ name: 'a', gtod_reduce: 1 }] }));
    expect(err.code).toBe('EUNSUPPORTED_OPTION');
    expect(err.message).toBe("fio option 'gtod_reduce' is not supported by volbench yet (in jobs[0])");
    expect(err.field).toBe('jobs[0].gtod_reduce');
    expect(errorOf(() => parseSpec({ jobs: [{ name: 'a', cmdprio_percentage: 10 }] })).code).toBe('EUNSUPPORTED_OPTION');
  });

  it.each([
    ['ioengine', 'posixaio', 'EUNSUPPORTED_OPTION', /io_uring/], ['ioengine', 'external:/x.so', 'EUNSUPPORTED_OPTION', undefined],
    ['ioengine', 'bogus', 'EINVALID_VALUE', /io_uring, libaio, psync, sync, null/],
    ['verify', 'sha256', 'EUNSUPPORTED_OPTION', /md5/], ['verify', 'sha9', 'EINVALID_VALUE', /crc32c/],
    ['rw', 'trimwrite', 'EUNSUPPORTED_OPTION', /randrw/], ['rw', 'randread:8', 'EUNSUPPORTED_OPTION', undefined],
    ['rw', 'random', 'EINVALID_VALUE', /randread/], ['filename', '/a:-', 'EUNSUPPORTED_OPTION', /one path/],
    ['filename', '-', 'EUNSUPPORTED_OPTION', undefined], ['directory', ':', 'EINVALID_VALUE', /one path/],
    ['filename', '', 'EINVALID_VALUE', /one path/], ['nrfiles', '0', 'EINVALID_VALUE', /from 1/],
    ['file_service_type', 'zipf:1.1', 'EUNSUPPORTED_OPTION', /roundrobin, random or sequential/],
    ['file_service_type', 'gauss', 'EUNSUPPORTED_OPTION', /roundrobin/],
    ['file_service_type', 'roundrobin:0', 'EINVALID_VALUE', /from 1/], ['file_service_type', 'lru', 'EINVALID_VALUE', /sequential/], ['kb_base', '1001', 'EINVALID_VALUE', /1000, 1024/],
    ['iodepth', '0', 'EINVALID_VALUE', /from 1/], ['numjobs', '0', 'EINVALID_VALUE', /from 1/],
    ['rwmixread', '101', 'EINVALID_VALUE', /to 100/], ['bs', '0', 'EINVALID_VALUE', /at least 1/],
    ['buffer_compress_percentage', '101', 'EINVALID_VALUE', /to 100/], ['bwavgtime', '0', 'EINVALID_VALUE', /from 1/],
    ['io_size', '150%', 'EINVALID_VALUE', /100%/], ['direct', 'yes', 'EINVALID_VALUE', /1 or 0/],
    ['time_based', '2', 'EINVALID_VALUE', /1 or 0/], ['sync', 'always', 'EINVALID_VALUE', /dsync/],
    ['fallocate', 'maybe', 'EINVALID_VALUE', /truncate/], ['fadvise_hint', 'willneed', 'EINVALID_VALUE', /sequential/], ['unified_rw_reporting', '3', 'EINVALID_VALUE', /both/],
    ['runtime', '10sec', 'EINVALID_VALUE', /ms/], ['size', '1.5g', 'EINVALID_VALUE', /kb_base/],
    ['percentile_list', '0:50', 'EINVALID_VALUE', /\(0, 100\]/],
  ] as const)('%s=%s is %s', (name, value, code, accepted) => {
    const err = errorOf(() => one({ [name]: value }));
    expect(err.code).toBe(code);
    expect(err.field).toBe(`jobs[0].${name}`);
    expect(err.message).toMatch(/jobs\[0\]/);
    if (accepted) expect(err.accepted).toMatch(accepted);
  });

  it('the field is the name as written, alias included', () => {
    expect(errorOf(() => one({ blocksize: 'x' })).field).toBe('jobs[0].blocksize');
  });

  it('a value error in global names the global field', () => {
    const err = errorOf(() => parseSpec({ global: { iodepth: 'deep' }, jobs: [{ name: 'a' }] }));
    expect(err.field).toBe('global.iodepth');
  });

  it('an option that needs a value cannot be given bare', () => {
    const err = errorOf(() => one({ bs: true }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('jobs[0].bs');
    expect(errorOf(() => parseSpec(parseJobFile('[a]\nbs\n'))).field).toBe('jobs[0].bs');
  });
});

describe('the shape of a spec', () => {
  it.each([
    [{}, 'jobs'], [{ jobs: [] }, 'jobs'], [{ jobs: [{ name: 'a', bs: null }] }, 'jobs[0].bs'],
    [{ jobs: [{ name: 'a', bs: [4096] }] }, 'jobs[0].bs'], [{ global: 'x', jobs: [{ name: 'a' }] }, 'global'],
    [{ job: [], jobs: [{ name: 'a' }] }, 'job'], [null, 'spec'], [{ jobs: [{ name: 'a', iodepth: Infinity }] }, 'jobs[0].iodepth'],
  ])('%j is EINVALID_SPEC at %s', (spec, field) => {
    const err = errorOf(() => parseSpec(spec));
    expect(err.code).toBe('EINVALID_SPEC');
    expect(err.field).toBe(field);
    expect(err.accepted).toMatch(/jobs/);
  });

  it('more jobs than fio runs (4096) is EINVALID_SPEC at jobs, before any job is read', () => {
    const jobs = Array.from({ length: 80_000 }, () => ({}));
    const { ms, error } = timed(() => parseSpec({ jobs }));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error).toMatchObject({ code: 'EINVALID_SPEC', field: 'jobs', accepted: 'at most 4096 jobs, as fio (MAX_JOBS)' });
    expect(parseSpec({ global: { name: 'g' }, jobs: jobs.slice(0, 4096) }).jobs).toHaveLength(4096);
  });

  /*
   * A JSON object's keys are distinct, so a section of more keys than volbench has option names
   * holds one it does not take. Expected: that one refused before the shape is validated, so
   * 60,000 keys cost one pass (validating them took 40 ms per pass, twice in the service).
   */
  it('a section of more keys than there are option names is refused at its first unknown key', () => {
    const global = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [i === 0 ? 'bs' : `o${i}`, { not: 'a value' }]));
    const { ms, error } = timed(() => parseSpec({ global, jobs: [{ name: 'a' }] }), 3, PARSE_BUDGET_MS / 4);
    expect(ms).toBeLessThan(PARSE_BUDGET_MS / 4);
    expect(error).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'global.o1' });
    expect(errorOf(() => parseSpec({ global: { bs: { not: 'a value' } }, jobs: [{ name: 'a' }] })).code).toBe('EINVALID_SPEC');
  });

  it('checkSpecBounds refuses more jobs than a caller runs as a limit (ELIMIT_EXCEEDED), fio\'s 4096 as a bad spec', () => {
    const jobs = Array.from({ length: 65 }, (_, i) => ({ name: `j${i}` }));
    expect(errorOf(() => checkSpecBounds({ jobs }, { maxJobs: 64 }))).toMatchObject({
      code: 'ELIMIT_EXCEEDED', field: 'jobs', accepted: 'at most 64 instances per run',
    });
    expect(() => checkSpecBounds({ jobs: jobs.slice(0, 64) }, { maxJobs: 64 })).not.toThrow();
    expect(errorOf(() => checkSpecBounds({ jobs: Array(4097).fill({}) }, { maxJobs: 8192 })).code).toBe('EINVALID_SPEC');
    for (const odd of [null, 'x', [], { jobs: 'x' }, { global: 3, jobs: [1] }]) expect(() => checkSpecBounds(odd)).not.toThrow();
  });

  it('a job without a name is EINVALID_SPEC', () => {
    const err = errorOf(() => parseSpec({ jobs: [{ rw: 'read' }] }));
    expect(err.code).toBe('EINVALID_SPEC');
    expect(err.field).toBe('jobs[0].name');
  });
});

describe('fio fix-ups that need no target', () => {
  // fio uses a given randseed whatever randrepeat says, but randrepeat still decides how the
  // offsets are seeded (tests/plan/fio-seeds.test.ts): both are kept as given.
  it('randrepeat and randseed are kept as given', () => {
    expect(one({ randrepeat: 0, randseed: '42' })).toMatchObject({ randrepeat: false, randseed: 42n });
    expect(one({ randrepeat: 0 })).toMatchObject({ randrepeat: false, randseed: 0x89n });
  });
});

describe('options that contradict each other', () => {
  it('rwmixread and rwmixwrite in one section must add up to 100', () => {
    expect(one({ rwmixread: 70, rwmixwrite: 30 }).rwmixread).toBe(70);
    const err = errorOf(() => one({ rwmixread: 70, rwmixwrite: 40 }));
    expect(err.code).toBe('EINVALID_PLAN');
    expect(err.field).toBe('jobs[0].rwmixwrite');
  });

  it('direct and buffered in one section must agree', () => {
    expect(one({ direct: 1, buffered: 0 }).direct).toBe(true);
    expect(errorOf(() => one({ direct: 1, buffered: 1 })).code).toBe('EINVALID_PLAN');
  });

  it('rate and rate_iops are mutually exclusive, as in fio', () => {
    const err = errorOf(() => one({ rate: '1m', rate_iops: 100 }));
    expect(err.code).toBe('EINVALID_PLAN');
    expect(err.field).toBe('jobs[0].rate_iops');
  });

  it('an iopsavgtime other than bwavgtime is refused as not supported, not ignored', () => {
    const err = errorOf(() => one({ iopsavgtime: 1000 }));
    expect(err.code).toBe('EUNSUPPORTED_OPTION');
    expect(err.field).toBe('jobs[0].iopsavgtime');
    expect(one({ iopsavgtime: 250, bwavgtime: 250 }).iopsavgtime).toBe(250);
  });

  it('numjobs stops at fio\'s 4096 job instances', () => {
    const err = errorOf(() => one({ numjobs: '1m' }));
    expect(err.code).toBe('EINVALID_VALUE');
    expect(err.field).toBe('jobs[0].numjobs');
    expect(one({ numjobs: 4096 }).numjobs).toBe(4096);
  });
});
