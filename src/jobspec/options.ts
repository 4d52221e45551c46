/**
 * The fio options volbench supports: one row each, with fio 3.33's name and aliases
 * (options.c `.name`/`.alias`, engines/io_uring.c for the io_uring flags), the JobOptions field
 * it fills, its default (fio's `.def`, except where JobOptions says volbench differs), whether it
 * is a flag (FIO_OPT_STR_SET) and its job-file priority (`.prio`).
 */
import { ENGINE_NAMES } from '../engine/engines.js';
import type { BsSplitEntry, JobOptions, PerDirection } from './types.js';
import {
  CPUS_ALLOWED_POLICY_CHOICE, FADVISE_HINT_CHOICE, FALLOCATE_CHOICE, IOENGINE_CHOICE, KB_BASE_CHOICE, RATE_PROCESS_CHOICE, RW_CHOICE,
  SYNC_CHOICE, UNIFIED_RW_REPORTING_CHOICE,
  VERIFY_CHOICE, choiceAccepted, parseChoice,
} from './choices.js';
import { invalidValue, unsupported } from './fail.js';
import {
  boolKind, choiceKind, flagKind, intKind, option, sizeKind, sizeOrPercentKind, stringKind, timeKind,
  type OptionContext, type OptionDef,
} from './option-def.js';
import { CPU_LIST_ACCEPTED, parseCpuList } from './cpu-list.js';
import { DEFAULT_FILE_SERVICE, FILE_SERVICE_ACCEPTED, parseFileService } from './file-service.js';
import { pathList, PATHS_ACCEPTED } from './paths.js';
import {
  BSRANGE_ACCEPTED, BSSPLIT_ACCEPTED, parseBsRange, parseBsSplit, parsePerDirection, perDirectionAccepted,
} from './per-direction.js';
import { DEFAULT_PERCENTILES, PERCENTILE_LIST_ACCEPTED, parsePercentileList } from './percentile-list.js';
import { parseRandomDistribution, RANDOM_DISTRIBUTION_ACCEPTED } from './random-distribution.js';
import {
  DEFAULT_STEADYSTATE, parseSteadyState, parseSteadyStateDuration, STEADYSTATE_ACCEPTED, STEADYSTATE_DURATION_ACCEPTED,
} from './steadystate.js';
import { parseDecimal, parseInteger, parseRandseed, parseSize } from './units.js';

const UINT_MAX = 0xffffffff;
/** Job instances in one run at most, fio's MAX_JOBS: each is a thread. */
export const MAX_INSTANCES = 4096;

/** bs, ba, rate: a size per direction, at least `min` bytes each. */
/**
 * The largest block one I/O may move: its length is a 32-bit count in the engine and in the
 * kernel's I/O interfaces (an io_uring SQE's len, an iocb's nbytes on 32-bit ABIs).
 */
export const MAX_BLOCK_SIZE = 2 ** 32 - 1;

function sizePerDirection(min: number, max = Number.MAX_SAFE_INTEGER) {
  const accepted = perDirectionAccepted(max === Number.MAX_SAFE_INTEGER ? (min ? `a size of at least ${min} byte` : 'a size')
    : `a size of at least ${min} byte and at most ${max} bytes`);
  return {
    accepted,
    parse: (text: string, ctx: OptionContext): PerDirection<number> =>
      parsePerDirection(text, ctx.previous as PerDirection<number>, (part) => {
        const bytes = parseSize(part, ctx);
        if (bytes < min) throw invalidValue(ctx.field, `'${part}' is below the minimum of ${min}`, accepted);
        if (bytes > max) throw invalidValue(ctx.field, `'${part}' is above the maximum of ${max} bytes`, accepted);
        return bytes;
      }, { field: ctx.field, accepted }),
  };
}

/** rate_iops, percentage_random: a whole number per direction, at most `max`. */
function countPerDirection(max = UINT_MAX) {
  const accepted = perDirectionAccepted(max === UINT_MAX ? 'a whole number' : `a whole number from 0 to ${max}`);
  return {
    accepted,
    parse: (text: string, ctx: OptionContext): PerDirection<number> =>
      parsePerDirection(text, ctx.previous as PerDirection<number>,
        (part) => parseInteger(part, { ...ctx, max }), { field: ctx.field, accepted }),
  };
}

/**
 * Files of one job instance at most: the engine numbers them in 16 bits, and each is a
 * descriptor held open for the whole job.
 */
export const MAX_FILES_PER_JOB = 65535;

/** filename, directory: one path or several, unescaped, as a list. */
function pathsKind(option: 'filename' | 'directory') {
  return {
    accepted: PATHS_ACCEPTED,
    parse: (text: string, ctx: OptionContext): string[] => {
      if (text === '') throw invalidValue(ctx.field, 'the value is empty', PATHS_ACCEPTED);
      const names = pathList(text, ctx.field, option);
      if (names.length > MAX_FILES_PER_JOB) {
        throw invalidValue(ctx.field, `${names.length} paths, more than the ${MAX_FILES_PER_JOB} a job may have`, PATHS_ACCEPTED);
      }
      return names;
    },
  };
}

const LATENCY_PERCENTILE_ACCEPTED = 'a percentage from 0 to 100, decimals allowed (99.9)';

/** latency_percentile: fio's FIO_OPT_FLOAT_LIST of one value, from 0 to 100. */
function parseLatencyPercentile(text: string, ctx: OptionContext): number {
  const value = parseDecimal(text, { ...ctx, accepted: LATENCY_PERCENTILE_ACCEPTED });
  if (value < 0 || value > 100) throw invalidValue(ctx.field, `${value} is not from 0 to 100`, LATENCY_PERCENTILE_ACCEPTED);
  return value;
}

/** rw=randread:8 and rw=write:4k (fio's sequencer postfix) are fio forms volbench lacks. */
function parseRw(text: string, ctx: OptionContext): JobOptions['rw'] {
  const [mode, postfix] = text.trim().split(':');
  if (postfix !== undefined) {
    throw unsupported(ctx.field, `the ':${postfix}' postfix of rw is not supported by volbench yet`, choiceAccepted(RW_CHOICE));
  }
  return parseChoice(mode, RW_CHOICE, { field: ctx.field, option: 'rw' });
}

function parseIoengine(text: string, ctx: OptionContext): JobOptions['ioengine'] {
  const word = text.trim();
  if (word.startsWith('external:') || word.includes('/')) {
    throw unsupported(ctx.field, `external ioengines ('${word}') are not supported by volbench yet`);
  }
  return parseChoice(word, IOENGINE_CHOICE, { field: ctx.field, option: 'ioengine' });
}

/** write_bw_log and friends: a file name prefix; given bare (job files), fio uses the job name. */
function logKind<K extends 'write_bw_log' | 'write_iops_log' | 'write_lat_log'>() {
  return {
    ...stringKind<K>(),
    accepted: 'a file name prefix (without one, the job name)',
    bare: (ctx: OptionContext<K>) => ctx.jobName,
  };
}

export const SUPPORTED_OPTIONS: readonly OptionDef[] = [
  // Job description and target
  option('name', 'name', stringKind()),
  option('description', 'description', stringKind()),
  option('filename', 'filename', pathsKind('filename'), { prio: -1 }),
  option('directory', 'directory', pathsKind('directory')),
  // With filename, fio takes the files it names (nrfiles then counts them, as in fio).
  option('nrfiles', 'nrfiles', intKind({ min: 1, max: MAX_FILES_PER_JOB }), { aliases: ['nr_files'], default: 1 }),
  option('file_service_type', 'file_service_type', { accepted: FILE_SERVICE_ACCEPTED, parse: (t, c) => parseFileService(t, c) },
    { default: DEFAULT_FILE_SERVICE }),
  option('size', 'size', sizeOrPercentKind(1)),
  option('filesize', 'filesize', sizeKind(1)),
  option('offset', 'offset', sizeOrPercentKind(0), { aliases: ['fileoffset'], default: { bytes: 0 } }),
  option('offset_increment', 'offset_increment', sizeOrPercentKind(0), { default: { bytes: 0 } }),
  option('io_size', 'io_size', sizeOrPercentKind(1), { aliases: ['io_limit'] }),
  // I/O pattern
  option('rw', 'rw', { accepted: choiceAccepted(RW_CHOICE), parse: parseRw }, { aliases: ['readwrite'], default: 'read' }),
  option('rwmixread', 'rwmixread', intKind({ max: 100 }), { default: 50 }),
  option('rwmixwrite', 'rwmixread', intKind({ max: 100 }, (n) => 100 - n)),
  option('bs', 'bs', sizePerDirection(1, MAX_BLOCK_SIZE), { aliases: ['blocksize'], default: [4096, 4096, 4096] }),
  option('bssplit', 'bssplit', {
    accepted: BSSPLIT_ACCEPTED,
    parse: (text, ctx) => parseBsSplit(text, ctx.previous as PerDirection<BsSplitEntry[]> | undefined, ctx),
  }),
  option('bsrange', 'bsrange', {
    accepted: BSRANGE_ACCEPTED,
    parse: (text, ctx) => parseBsRange(text, ctx.previous as PerDirection<[number, number]> | undefined, ctx),
  }, { aliases: ['blocksize_range'] }),
  option('ba', 'blockalign', sizePerDirection(1, MAX_BLOCK_SIZE), { aliases: ['blockalign'], default: [0, 0, 0] }),
  // fio's own bound (options.c: iodepth maxval 65535); the engine's I/O slots are numbered in 16 bits.
  option('iodepth', 'iodepth', intKind({ min: 1, max: 65535 }), { default: 1 }),
  option('iodepth_batch', 'iodepth_batch_submit', intKind({ max: UINT_MAX }), { aliases: ['iodepth_batch_submit'], default: 1 }),
  option('iodepth_batch_complete_min', 'iodepth_batch_complete_min', intKind({ max: UINT_MAX }),
    { aliases: ['iodepth_batch_complete'], default: 1 }),
  option('iodepth_batch_complete_max', 'iodepth_batch_complete_max', intKind({ max: UINT_MAX }), { default: 0 }),
  // fio runs at most MAX_JOBS (4096) job instances in all.
  option('numjobs', 'numjobs', intKind({ min: 1, max: MAX_INSTANCES }), { default: 1 }),
  option('group_reporting', 'group_reporting', flagKind(), { default: false }),
  option('stonewall', 'stonewall', flagKind(), { aliases: ['wait_for_previous'], default: false }),
  option('new_group', 'new_group', flagKind(), { default: false }),
  // Time
  option('runtime', 'runtime_ns', timeKind('s'), { aliases: ['timeout'], default: 0 }),
  option('time_based', 'time_based', flagKind(), { default: false }),
  option('ramp_time', 'ramp_time_ns', timeKind('s'), { default: 0 }),
  option('startdelay', 'startdelay_ns', timeKind('s'), { default: 0 }),
  // Steady state: on when steadystate_duration is set; the job ends once the criterion holds.
  option('steadystate', 'steadystate', { accepted: STEADYSTATE_ACCEPTED, parse: (t, c) => parseSteadyState(t, c) },
    { aliases: ['ss'], default: DEFAULT_STEADYSTATE }),
  option('steadystate_duration', 'steadystate_duration_ns',
    { accepted: STEADYSTATE_DURATION_ACCEPTED, parse: (t, c) => parseSteadyStateDuration(t, c) }, { aliases: ['ss_dur'], default: 0 }),
  option('steadystate_ramp_time', 'steadystate_ramp_time_ns', timeKind('s'), { aliases: ['ss_ramp'], default: 0 }),
  // fio runs loops=0 once (init.c fixup_options), so 0 is stored as 1.
  option('loops', 'loops', intKind({ max: UINT_MAX }, (n) => Math.max(1, n)), { default: 1 }),
  // Buffering and syncing
  option('direct', 'direct', boolKind(), { default: false }),
  option('buffered', 'direct', boolKind(true)),
  option('sync', 'sync', choiceKind('sync', SYNC_CHOICE), { default: 'none' }),
  option('fsync', 'fsync', intKind({ max: UINT_MAX }), { default: 0 }),
  option('fdatasync', 'fdatasync', intKind({ max: UINT_MAX }), { default: 0 }),
  option('end_fsync', 'end_fsync', boolKind(), { default: false }),
  option('invalidate', 'invalidate', boolKind(), { default: true }),
  // Randomness
  option('randrepeat', 'randrepeat', boolKind(), { default: true }),
  option('randseed', 'randseed', { accepted: 'a 64-bit whole number', parse: (t, c) => parseRandseed(t, c) }, { default: 0x89n }),
  option('norandommap', 'norandommap', flagKind(), { default: false }),
  option('random_distribution', 'random_distribution',
    { accepted: RANDOM_DISTRIBUTION_ACCEPTED, parse: (t, c) => parseRandomDistribution(t, c) }, { default: { kind: 'random' } }),
  option('percentage_random', 'percentage_random', countPerDirection(100), { default: [100, 100, 100] }),
  // Rate and think time
  option('rate', 'rate', sizePerDirection(0), { default: [0, 0, 0] }),
  option('rate_iops', 'rate_iops', countPerDirection(), { default: [0, 0, 0] }),
  option('rate_process', 'rate_process', choiceKind('rate_process', RATE_PROCESS_CHOICE), { default: 'linear' }),
  // fio's latency target (backend.c, io_u.c lat_target_*): a bare number is in microseconds.
  option('latency_target', 'latency_target_ns', timeKind('us'), { default: 0 }),
  option('latency_window', 'latency_window_ns', timeKind('us'), { default: 0 }),
  option('latency_percentile', 'latency_percentile',
    { accepted: LATENCY_PERCENTILE_ACCEPTED, parse: parseLatencyPercentile }, { default: 100 }),
  option('thinktime', 'thinktime_ns', timeKind('us'), { default: 0 }),
  option('thinktime_blocks', 'thinktime_blocks', intKind({ min: 1, max: UINT_MAX }), { default: 1 }),
  // Buffer contents
  option('refill_buffers', 'refill_buffers', flagKind(), { default: false }),
  option('scramble_buffers', 'scramble_buffers', boolKind(), { default: true }),
  option('zero_buffers', 'zero_buffers', flagKind(), { default: false }),
  option('buffer_compress_percentage', 'buffer_compress_percentage', intKind({ max: 100 }), { default: 0 }),
  option('buffer_compress_chunk', 'buffer_compress_chunk', intKind({ max: UINT_MAX }), { default: 512 }),
  // Verification
  option('verify', 'verify', choiceKind('verify', VERIFY_CHOICE), { default: 'none' }),
  option('do_verify', 'do_verify', boolKind(), { default: true }),
  option('verify_only', 'verify_only', flagKind(), { default: false }),
  // Reporting
  option('percentile_list', 'percentile_list',
    { accepted: PERCENTILE_LIST_ACCEPTED, parse: (t, c) => parsePercentileList(t, c) }, { default: [...DEFAULT_PERCENTILES] }),
  option('clat_percentiles', 'clat_percentiles', boolKind(), { default: true }),
  option('lat_percentiles', 'lat_percentiles', boolKind(), { default: false }),
  option('slat_percentiles', 'slat_percentiles', boolKind(), { default: false }),
  option('unified_rw_reporting', 'unified_rw_reporting', choiceKind('unified_rw_reporting', UNIFIED_RW_REPORTING_CHOICE),
    { default: 'none' }),
  option('write_bw_log', 'write_bw_log', logKind()),
  option('write_iops_log', 'write_iops_log', logKind()),
  option('write_lat_log', 'write_lat_log', logKind()),
  option('log_avg_msec', 'log_avg_msec', intKind({ max: UINT_MAX }), { default: 0 }),
  option('log_offset', 'log_offset', boolKind(), { default: false }),
  option('bwavgtime', 'bwavgtime', intKind({ min: 1, max: UINT_MAX }), { default: 500 }),
  option('iopsavgtime', 'iopsavgtime', intKind({ min: 1, max: UINT_MAX }), { default: 500 }),
  option('disable_lat', 'disable_lat', boolKind(), { default: false }),
  option('disable_clat', 'disable_clat', boolKind(), { default: false }),
  option('disable_slat', 'disable_slat', boolKind(), { default: false }),
  // kb_base has prio 1 in fio, so a job file's sizes are read after it whatever the line order.
  option('kb_base', 'kb_base', choiceKind('kb_base', KB_BASE_CHOICE), { prio: 1, default: 1024 }),
  option('unlink', 'unlink', boolKind(), { default: false }),
  // Engines. ioengine unset means volbench picks (io_uring, then libaio, then psync).
  option('ioengine', 'ioengine', { accepted: `one of ${ENGINE_NAMES.join(', ')}`, parse: parseIoengine }),
  // fixedbufs and registerfiles unset mean volbench's defaults (JobOptions); given, they are
  // what the user says.
  option('fixedbufs', 'fixedbufs', flagKind(), { engine: true }),
  option('registerfiles', 'registerfiles', flagKind(), { engine: true }),
  option('sqthread_poll', 'sqthread_poll', flagKind(), { engine: true, default: false }),
  option('hipri', 'hipri', flagKind(), { engine: true, default: false }),
  option('cpus_allowed', 'cpus_allowed', { accepted: CPU_LIST_ACCEPTED, parse: (text, ctx) => parseCpuList(text, ctx.field) },
    { default: [] }),
  option('cpus_allowed_policy', 'cpus_allowed_policy', choiceKind('cpus_allowed_policy', CPUS_ALLOWED_POLICY_CHOICE),
    { default: 'shared' }),
  option('fallocate', 'fallocate', choiceKind('fallocate', FALLOCATE_CHOICE), { default: 'native' }),
  option('fadvise_hint', 'fadvise_hint', choiceKind('fadvise_hint', FADVISE_HINT_CHOICE), { default: 'pattern' }),
  // volbench's own: writing to a block device needs this opt-in. fio has no such option.
  option('allow_block_write', 'allow_block_write', flagKind(), { default: false, echo: false }),
];
