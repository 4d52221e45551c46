/**
 * fast-check generators for the parsers' inputs: fio job files built from a grammar of the
 * options volbench supports (aliases, units, per-direction values, comments, blanks), fio
 * command lines, assertions, and mutations that turn any of them into near-valid input.
 */
import fc from 'fast-check';

const int = (min: number, max: number) => fc.integer({ min, max });
const pick = <T>(...values: T[]) => fc.constantFrom(...values);
const str = (a: fc.Arbitrary<number | string>) => a.map(String);

/** A size as a user types it: a unit letter or suffix, a plain number, or hex. */
export const sizeText = (maxMiB = 1024): fc.Arbitrary<string> => fc.oneof(
  fc.tuple(int(1, 1024), pick('k', 'K', 'kb', 'KB', 'ki', 'KiB', 'kib')).map(([n, u]) => `${n}${u}`),
  fc.tuple(int(1, maxMiB), pick('m', 'M', 'mb', 'MiB')).map(([n, u]) => `${n}${u}`),
  str(int(1, 1 << 20)),
  fc.tuple(int(1, 1 << 20), pick('b', 'B')).map(([n, u]) => `${n}${u}`),
  int(1, 1 << 20).map((n) => `0x${n.toString(16)}`),
);

const percent = (min: number) => int(min, 100).map((n) => `${n}%`);

/** A duration with fio's time units, kept well inside what a runtime may hold. */
export const timeText: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(int(0, 3600), pick('', 's', 'S', 'ms', 'msec', 'us', 'usec', 'm')).map(([n, u]) => `${n}${u}`),
  fc.tuple(int(0, 48), pick('h', 'd')).map(([n, u]) => `${n}${u}`),
);

/** `a`, `a,b`, `a,b,c`, with empty slots (`,b`, `a,,`) that keep the previous value. */
function perDirection(one: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: one },
    fc.tuple(one, one).map(([a, b]) => `${a},${b}`),
    fc.tuple(one, one, one).map(([a, b, c]) => `${a},${b},${c}`),
    one.map((a) => `,${a}`),
    fc.tuple(one, one).map(([a, b]) => `${a},${b},`),
    one.map((a) => `${a},,`),
  );
}

/** A bssplit list whose given percentages add up to 100 at most. */
const splitList: fc.Arbitrary<string> = int(1, 4).chain((n) =>
  fc.array(fc.tuple(sizeText(64), fc.boolean()), { minLength: n, maxLength: n })
    .map((entries) => entries.map(([bs, given]) => (given ? `${bs}/${Math.floor(100 / n)}` : bs)).join(':')));

const bool = pick('0', '1');
const flagValue = fc.constantFrom<true | string>(true, '1', '0');
const decimal = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
  .map((x) => String(Math.round(x * 1000) / 1000));

/** Text a job file can hold as a value. */
export const plainText: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _.,+-]{0,20}[A-Za-z0-9]$/);

const pathText: fc.Arbitrary<string> = fc.tuple(
  pick('/tmp/', '/dev/shm/', 'data/', ''),
  fc.stringMatching(/^[a-z0-9_.-]{1,12}$/),
  pick('', '\\:1', '.dat'),
).map(([dir, base, tail]) => `${dir}${base}${tail}`).filter((p) => p !== '-');

/** Job names a section header holds (and that do not start with "global"). */
export const jobName: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,15}$/)
  .filter((n) => !n.startsWith('global'));

type Line = [names: string[], value: fc.Arbitrary<string | true>];

/**
 * Every supported option with values fio documents, under each of its names. `fio: false` marks
 * lines fio itself would refuse in a plain job (volbench's own option, io_uring's options
 * without ioengine=io_uring), left out of files handed to fio.
 */
const OPTIONS: Array<Line & { fio?: false }> = [
  [['rw', 'readwrite'], pick('read', 'write', 'randread', 'randwrite', 'rw', 'readwrite', 'randrw', 'trim', 'randtrim')],
  [['bs', 'blocksize'], perDirection(sizeText(64))],
  [['ba', 'blockalign'], perDirection(sizeText(1))],
  [['bssplit'], perDirection(splitList)],
  [['size'], fc.oneof(sizeText(), percent(1))],
  [['filesize'], sizeText()],
  [['io_size', 'io_limit'], fc.oneof(sizeText(), percent(1))],
  [['offset', 'fileoffset'], fc.oneof(sizeText(), percent(0), pick('0'))],
  [['offset_increment'], fc.oneof(sizeText(), percent(0))],
  [['iodepth'], fc.oneof(str(int(1, 256)), pick('1k'))],
  [['iodepth_batch', 'iodepth_batch_submit'], str(int(0, 64))],
  [['iodepth_batch_complete_min', 'iodepth_batch_complete'], str(int(0, 64))],
  [['numjobs'], str(int(1, 8))],
  [['ioengine'], pick('io_uring', 'libaio', 'psync', 'sync', 'null')],
  [['runtime', 'timeout'], timeText],
  [['ramp_time'], timeText],
  [['startdelay'], timeText],
  [['thinktime'], timeText],
  [['thinktime_blocks'], str(int(1, 64))],
  [['time_based'], flagValue],
  [['group_reporting'], flagValue],
  [['stonewall', 'wait_for_previous'], flagValue],
  [['new_group'], flagValue],
  [['norandommap'], flagValue],
  [['refill_buffers'], flagValue],
  [['zero_buffers'], flagValue],
  [['verify_only'], flagValue],
  [['rate'], perDirection(fc.oneof(sizeText(), pick('0')))],
  [['rate_iops'], perDirection(str(int(0, 100000)))],
  [['rwmixread'], str(int(0, 100))],
  [['rwmixwrite'], str(int(0, 100))],
  [['direct'], bool],
  [['buffered'], bool],
  [['verify'], pick('0', 'crc32c', 'crc32c-intel', 'none')],
  [['do_verify'], bool],
  [['sync'], pick('0', '1', 'none', 'sync', 'dsync')],
  [['fsync'], str(int(0, 32))],
  [['fdatasync'], str(int(0, 32))],
  [['end_fsync'], bool],
  [['invalidate'], bool],
  [['randrepeat'], bool],
  [['randseed'], fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String), int(0, 1 << 30).map((n) => `0x${n.toString(16)}`))],
  [['random_distribution'], fc.oneof(
    pick('random', 'zipf', 'pareto', 'normal'),
    decimal(0, 5).filter((x) => x !== '1').map((x) => `zipf:${x}`),
    decimal(0.001, 0.999).map((x) => `pareto:${x}`),
    decimal(0, 99.9).map((x) => `normal:${x}`),
  )],
  [['scramble_buffers'], bool],
  [['buffer_compress_percentage'], str(int(0, 100))],
  [['buffer_compress_chunk'], fc.oneof(str(int(0, 65536)), pick('4k'))],
  [['percentile_list'], fc.array(decimal(0.001, 100), { minLength: 1, maxLength: 6 }).map((v) => v.join(':'))],
  [['clat_percentiles'], bool],
  [['lat_percentiles'], bool],
  [['slat_percentiles'], bool],
  [['unified_rw_reporting'], pick('none', 'mixed', 'both', '0', '1', '2')],
  [['write_bw_log'], fc.oneof(pick(true as const), plainText)],
  [['write_iops_log'], fc.oneof(pick(true as const), plainText)],
  [['write_lat_log'], fc.oneof(pick(true as const), plainText)],
  [['log_avg_msec'], str(int(0, 1000))],
  [['log_offset'], bool],
  [['disable_lat'], bool],
  [['disable_clat'], bool],
  [['disable_slat'], bool],
  [['kb_base'], pick('1000', '1024')],
  // CPU 0 alone: any machine has it, and fio refuses a CPU the machine lacks.
  [['cpus_allowed'], pick('0', '0-0', '0,0')],
  [['cpus_allowed_policy'], pick('shared', 'split')],
  [['unlink'], bool],
  [['fallocate'], pick('none', 'native', 'posix', 'keep', 'truncate', '0', '1')],
  [['fadvise_hint'], pick('0', '1', 'random', 'sequential')],
  [['loops'], str(int(0, 5))],
  [['description'], plainText],
  [['filename'], pathText],
  [['directory'], pathText],
  [['steadystate', 'ss'], fc.tuple(pick('iops', 'iops_slope', 'bw', 'bw_slope'), decimal(0, 100), pick('', '%'))
    .map(([m, x, p]) => `${m}:${x}${p}`)],
  [['steadystate_duration', 'ss_dur'], fc.oneof(pick('0'), fc.tuple(int(1, 600), pick('', 's', 'm')).map(([n, u]) => `${n}${u}`))],
  [['steadystate_ramp_time', 'ss_ramp'], timeText],
  Object.assign([['allow_block_write'], flagValue] as Line, { fio: false as const }),
  Object.assign([['fixedbufs'], flagValue] as Line, { fio: false as const }),
  Object.assign([['registerfiles'], flagValue] as Line, { fio: false as const }),
  Object.assign([['sqthread_poll'], flagValue] as Line, { fio: false as const }),
  Object.assign([['hipri'], flagValue] as Line, { fio: false as const }),
];

export interface GrammarOptions {
  /** Leave out what fio refuses in a plain job file (see OPTIONS). */
  fio?: boolean;
  /** Write lines as a person might: blanks around '=', comments, blank lines. */
  decorate?: boolean;
}

/** One option line's name and value (true: the name alone). */
function optionLine(opts: GrammarOptions): fc.Arbitrary<[string, string | true]> {
  const lines = opts.fio ? OPTIONS.filter((o) => o.fio !== false) : OPTIONS;
  return fc.oneof(...lines.map(([names, value]) => fc.tuple(pick(...names), value)));
}

function decorated(name: string, value: string | true, decorate: boolean): fc.Arbitrary<string> {
  const plain = value === true ? name : `${name}=${value}`;
  if (!decorate) return fc.constant(plain);
  return fc.tuple(pick('', ' ', '\t'), pick('', ' '), pick('', ' '), pick('', '', ' # why', ' ; note', '\t')).map(([lead, before, after, tail]) =>
    `${lead}${value === true ? name : `${name}${before}=${after}${value}`}${tail}`);
}

function sectionLines(opts: GrammarOptions, max: number): fc.Arbitrary<string[]> {
  return fc.array(optionLine(opts).chain(([n, v]) => decorated(n, v, opts.decorate ?? false)), { maxLength: max });
}

/**
 * A job file: an optional [global], one to four jobs, sometimes a [global] between them that
 * changes the jobs after it, sometimes comments and blank lines between lines.
 */
export function jobFileText(opts: GrammarOptions = {}): fc.Arbitrary<string> {
  const job = fc.tuple(jobName, sectionLines(opts, 8), fc.boolean())
    .map(([name, lines, named]) => [`[${name}]`, ...(named ? [`name=${name}x`] : []), ...lines]);
  const global = sectionLines(opts, 6).map((lines) => ['[global]', ...lines]);
  const section = fc.oneof({ weight: 4, arbitrary: job }, { weight: 1, arbitrary: global });
  const filler = opts.decorate ? pick('', '', '; a comment', '# [not a section]', '   ') : fc.constant('');
  return fc.tuple(fc.option(global, { nil: undefined }), job, fc.array(section, { maxLength: 3 }), filler)
    .map(([lead, first, more, fill]) => {
      const sections = [...(lead ? [lead] : []), first, ...more];
      return `${sections.map((lines) => lines.join('\n')).join(fill ? `\n${fill}\n` : '\n')}\n`;
    });
}

/** fio's command line: global options, then jobs opened by --name, in the forms getopt takes. */
export function fioArgv(): fc.Arbitrary<string[]> {
  const opt = optionLine({}).chain(([name, value]) => {
    if (value === true) return fc.constant<string[]>([`--${name}`]);
    return fc.constantFrom<string[]>([`--${name}=${value}`], [`-${name}=${value}`], [`--${name}`, value]);
  });
  const job = fc.tuple(jobName, fc.array(opt, { maxLength: 6 })).map(([name, opts]) => [`--name=${name}`, ...opts.flat()]);
  const own = fc.oneof<fc.Arbitrary<string[]>[]>(
    pick(['--output-format=json'], ['--output-format=json+,normal'], ['--output', '/tmp/vb-out.json'], ['--github']),
    pick(['--max-runtime', '10m'], ['--max-size=1g'], ['--max-memory=64m'], ['--assert', 'a.iops >= 1']),
    pick(['--volume', 'gp3:size=100g'], ['--volume=gp2:size=500g'], ['--instance', 'm5.large'], ['--no-cloud-lookup']),
  );
  return fc.tuple(fc.array(opt, { maxLength: 4 }), fc.array(job, { minLength: 1, maxLength: 3 }), fc.array(own, { maxLength: 3 }))
    .chain(([globals, jobs, owns]) => fc.shuffledSubarray([...owns], { minLength: owns.length }).map((o) => [...globals.flat(), ...jobs.flat(), ...o.flat()]));
}

const METRIC_NAMES = [
  'iops', 'bw', 'io_bytes', 'error', 'clat_ns.p99', 'clat_ns.p99.9', 'lat_ns.mean', 'slat_ns.max', 'clat.p50',
  'lat.stddev', 'slat_ns.min', 'clat_ns.p100',
];

/** `<job>[.<dir>].<metric> <op> <value>`, and the analyses' gates. */
export const assertionText: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,20}$/),
    pick('', '.read', '.write', '.trim', '.sync', '.mixed'),
    pick(...METRIC_NAMES),
    pick('>=', '<=', '>', '<', '==', '!='),
    pick('', ' '),
    fc.tuple(pick('0', '3000', '1.5', '.5', '250000'), pick('', 'k', 'M', 'G', 'ms', 'us', 'µs', 'ns', 's', 'MiB/s', 'KB/s', 'GBps', 'B', 'KiB', 'g'))
      .map(([n, u]) => `${n}${u}`),
  // error is a whole-job metric: it takes no direction.
  ).map(([job, dir, metric, op, blank, value]) => `${job}${metric === 'error' ? '' : dir}.${metric}${blank}${op}${blank}${value}`),
  fc.tuple(
    pick('sweep.optimal_depth', 'sweep.optimal_p99', 'uniformity.min_mbps', 'rotational.rpm', 'rotational.seek_time'),
    pick('>=', '<', '=='),
    pick('8', '100', '1.5k', '2ms', '7200'),
  ).map(([s, op, v]) => `${s} ${op} ${v}`),
);

/** Pieces that mean something to one parser or another, for mutations to splice in. */
const NOISE = [
  '[', ']', '[global]', '=', '==', '$', '${', '}', '${A}', '${UNSET}', '$ncpus', '$pagesize', '$mb_memory', '(', ')',
  '((', '))', ',', ':', '\\:', '/', '%', ';', '#', '\n', '\r\n', ' ', '\t', '0', '9', '-1', '1e999', '0x', '0xfffffffffffffffff',
  '18446744073709551616', '9007199254740993', 'k', 'KiB', 'g', 'p', 's', 'ms', 'us', 'h', 'd', '.', '..', '+', '-', '*', '/0',
  '\\', '\u0000', '\uffff', 'é', '\u{1F600}', '\ud800', 'global', 'include ', 'include /etc/passwd', '--', '-', '--name=',
  'name=', 'bs=', 'rw=', 'constructor', '__proto__', 'toString', 'read.', '.iops', '>=', '<', '!', '.p', 'p99.', '/s',
];

type Mutation = { op: 'insert' | 'delete' | 'replace' | 'repeat'; at: number; len: number; text: string; times: number };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: pick('insert', 'delete', 'replace', 'repeat'),
  at: fc.nat(),
  len: int(0, 12),
  text: fc.oneof({ weight: 3, arbitrary: pick(...NOISE) }, fc.string({ maxLength: 4, unit: 'binary' })),
  times: int(2, 40),
});

function applyMutation(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.at % (text.length + 1);
  const end = Math.min(text.length, at + m.len);
  switch (m.op) {
    case 'insert':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(end);
    case 'replace':
      return text.slice(0, at) + m.text + text.slice(end);
    case 'repeat':
      return text.slice(0, end) + text.slice(at, end).repeat(m.times) + text.slice(end);
  }
}

/** `base` with one to six edits: noise spliced in, pieces cut, a slice repeated. */
export function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, fc.array(mutation, { minLength: 1, maxLength: 6 })).map(([text, ms]) => ms.reduce(applyMutation, text));
}

/**
 * `base` with one to four edits just after an '=' (or in the values of a command line's
 * `--opt=value`): where a name edit is refused at once, a value edit reaches the value parsers.
 */
export function mutatedValues(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, fc.array(fc.tuple(fc.nat(), int(0, 3), mutation), { minLength: 1, maxLength: 4 }))
    .map(([text, edits]) => edits.reduce((out, [k, skip, m]) => {
      const eqs = [...out.matchAll(/=/g)].map((hit) => hit.index);
      if (eqs.length === 0) return applyMutation(out, m);
      return applyMutation(out, { ...m, at: eqs[k % eqs.length] + 1 + skip });
    }, text));
}

/** An argument list with its arguments mutated (one to three of them). */
export function mutatedArgv(base: fc.Arbitrary<string[]>): fc.Arbitrary<string[]> {
  return fc.tuple(base, fc.array(fc.tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 })), { minLength: 1, maxLength: 3 }))
    .map(([argv, edits]) => {
      const out = [...argv];
      for (const [i, ms] of edits) if (out.length) out[i % out.length] = ms.reduce(applyMutation, out[i % out.length]);
      return out;
    });
}

/** Strings of the characters the parsers split on, so random text hits their branches. */
export const syntaxString: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: pick(...NOISE) }, fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })),
  maxLength: 40,
});

/** Arbitrary strings: mostly the characters parsers split on, some any UTF-16 at all. */
export const anyText: fc.Arbitrary<string> = fc.oneof(syntaxString, fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ maxLength: 30 }));
