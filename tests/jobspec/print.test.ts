/**
 * printJobFile writes a parsed spec as a fio job file: fio's canonical option names, values in
 * units both fio and parseJobFile read to the same numbers, the options every job shares in
 * [global]. Reading the printed file gives every job the options it had; printing that again
 * gives the same text. fio 3.33 itself accepts the printed files and reads the same numbers.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

import { VolbenchError } from '../../src/errors.js';
import { findOption, parseJobFile, parseSpec, printJobFile, type JobOptions, type ParsedSpec } from '../../src/jobspec/index.js';
import { jobFileText } from '../helpers/arbitraries.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'fio');

const RUNS = Number(process.env.VOLBENCH_PROPERTY_RUNS ?? 150);

const parse = (text: string): ParsedSpec => parseSpec(parseJobFile(text, {}));
const options = (spec: ParsedSpec) => spec.jobs.map((job) => job.options);

describe('printJobFile', () => {
  it('writes fio\'s canonical names, units that divide exactly, and the options every job shares in [global]', () => {
    const spec = parse([
      '[global]', 'blocksize=4096', 'readwrite=randrw', 'rwmixwrite=30', 'ioengine=libaio', 'time_based', 'timeout=90',
      '[seq]', 'rw=read', 'size=1g', 'bs=1m', 'rate=,1m', 'ba=,4k',
      '[rand]', 'size=50%', 'iodepth=32', 'thinktime=1500', 'ramp_time=500ms', 'verify=crc32c-intel', 'buffered=1',
    ].join('\n'));
    expect(printJobFile(spec)).toBe([
      '[global]', 'rwmixread=70', 'runtime=90s', 'time_based', 'ioengine=libaio', '',
      '[seq]', 'size=1g', 'bs=1m', 'ba=,4k,4k', 'rate=,1m,1m', '',
      '[rand]', 'size=50%', 'rw=randrw', 'iodepth=32', 'ramp_time=500ms', 'thinktime=1500us', 'verify=crc32c', '',
    ].join('\n'));
  });

  it('leaves out options at their defaults and writes a job with none as its header alone', () => {
    expect(printJobFile(parse('[a]\nbs=4k\nrw=read\niodepth=1\ndirect=0\n'))).toBe('[a]\n');
    expect(printJobFile(parseSpec({ jobs: [{ name: 'a' }, { name: 'b', direct: true }] }))).toBe('[a]\n\n[b]\ndirect=1\n');
  });

  it('writes values in fio 3.33\'s spelling where volbench takes more words', () => {
    const text = printJobFile(parse('[a]\nverify=none\nsync=sync\nrw=readwrite\n[b]\nsync=dsync\nunified_rw_reporting=2\nfallocate=0\n'));
    expect(text).toBe('[a]\nrw=rw\nsync=1\n\n[b]\nsync=dsync\nunified_rw_reporting=both\nfallocate=none\n');
  });

  it('writes sizes in the units of the section\'s kb_base, as fio reads them', () => {
    const spec = parse('[a]\nkb_base=1000\nsize=4000k\nbs=8KiB\n[b]\nsize=4m\n');
    const text = printJobFile(spec);
    expect(text).toBe('[a]\nsize=4m\nbs=8192\nkb_base=1000\n\n[b]\nsize=4m\n');
    expect(options(parse(text))).toEqual(options(spec));
    expect(options(parse(text)).map((o) => o.size)).toEqual([{ bytes: 4e6 }, { bytes: 4 * 1024 * 1024 }]);
  });

  it('puts a kb_base every job shares in [global] and writes [global]\'s sizes in it', () => {
    const text = printJobFile(parse('[global]\nkb_base=1000\n[a]\nsize=2k\n[b]\nsize=2k\n'));
    expect(text).toBe('[global]\nsize=2k\nkb_base=1000\n\n[a]\n\n[b]\n');
  });

  it('writes bssplit, per-direction rates, distributions, steady state and seeds back exactly', () => {
    const spec = parse([
      '[a]', 'bssplit=4k/30:64k:1m/10,,512/100', 'rate_iops=100,200,300', 'random_distribution=zipf:1.2',
      'ss=iops_slope:0.5%', 'ss_dur=2m', 'randseed=0xffffffffffffffff', 'percentile_list=99.999:50:1', 'write_bw_log',
    ].join('\n'));
    const text = printJobFile(spec);
    expect(text).toContain('bssplit=4k/30:64k/60:1m/10,,512/100\n');
    expect(text).toContain('rate_iops=100,200,300\n');
    expect(text).toContain('steadystate=iops_slope:0.5%\nsteadystate_duration=120s\n');
    expect(text).toContain('randseed=18446744073709551615\n');
    expect(text).toContain('percentile_list=1:50:99.999\n');
    expect(text).toContain('write_bw_log=a\n');
    expect(options(parse(text))).toEqual(options(spec));
  });

  it('escapes a colon in a file name as fio reads it, and names a job with name= where a header cannot', () => {
    const spec = parseSpec({ jobs: [{ name: 'global-ish', filename: '/tmp/a\\:b' }, { name: 'x[1]' }, { name: 'a b' }] });
    const text = printJobFile(spec);
    expect(text).toBe('[job1]\nname=global-ish\nfilename=/tmp/a\\:b\n\n[job2]\nname=x[1]\n\n[a b]\n');
    expect(options(parse(text))).toEqual(options(spec));
  });

  it('refuses a value a job file cannot hold, naming it', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'a', description: 'seq; 1m' }, 'jobs[0].description'],
      [{ name: 'a#1' }, 'jobs[0].name'],
      [{ name: 'a', filename: '/tmp/${HOME}' }, 'jobs[0].filename'],
      [{ name: 'a', write_bw_log: 'x$ncpus' }, 'jobs[0].write_bw_log'],
      [{ name: ' a' }, 'jobs[0].name'],
      [{ name: 'a', description: 'two\nlines' }, 'jobs[0].description'],
    ];
    for (const [job, field] of cases) {
      const err = errorOf(() => printJobFile(parseSpec({ jobs: [job] })));
      expect(err).toMatchObject({ code: 'EINVALID_VALUE', field });
      expect(err.accepted).toContain('job file');
    }
  });

  it('refuses a time that is not whole microseconds, fio\'s unit', () => {
    const [job] = parse('[a]\nruntime=1s\n').jobs;
    const odd: JobOptions = { ...job.options, runtime_ns: 1_000_000_001 };
    expect(errorOf(() => printJobFile({ jobs: [{ options: odd }] }))).toMatchObject({ code: 'EINVALID_VALUE', field: 'jobs[0].runtime' });
  });
});

describe('printJobFile on job files of the grammar', () => {
  it('parse(print(parse(x))) gives every job the options parse(x) gave it', () => {
    fc.assert(fc.property(jobFileText({ decorate: true }), (text) => {
      let parsed: ParsedSpec;
      try {
        parsed = parse(text);
      } catch (err) {
        // The grammar can pair options that refuse each other (rate with rate_iops).
        expect(err).toBeInstanceOf(VolbenchError);
        return;
      }
      const printed = printJobFile(parsed);
      const again = parse(printed);
      expect(options(again)).toEqual(options(parsed));
      // The printed form is where printing settles: printed again it is the same text, so
      // parse(print(p)) deep-equals p for every printed p, echo and fields included.
      expect(printJobFile(again)).toBe(printed);
      expect(parse(printJobFile(again))).toEqual(again);
    }), { numRuns: RUNS * 2 });
  });
});

const fioVersion = needs.missing('fio') === undefined ? spawnSync('fio', ['--version'], { encoding: 'utf8' }).stdout.trim() : null;

/** fio --debug=parse lists each option it applies and, for numbers, the value it read. */
interface FioRead {
  /** Index of the section in the file (0 is the first). */
  section: number;
  name: string;
  /** One per value slot fio parsed (read,write,trim); null where the slot was empty. */
  outs: Array<bigint | null>;
}

function fioReads(debug: string): FioRead[] {
  const reads: FioRead[] = [];
  let section = -1;
  let current: FioRead | undefined;
  for (const line of debug.split('\n')) {
    // fio pads the pid to five columns and adds a space: strip both, whatever the pid's width.
    const body = line.replace(/^parse\s+\d+\s+/, '');
    if (body.startsWith('Parsing section [')) section++;
    let m = /^handle_option=([a-z_]+), ptr=/.exec(body);
    if (m) {
      current = { section, name: m[1], outs: [] };
      reads.push(current);
      continue;
    }
    m = /^__handle_option=/.exec(body);
    if (m && current) current.outs.push(null);
    m = /^\s*ret=(\d+), out=(\d+)/.exec(body);
    if (m && current && current.outs.length) current.outs[current.outs.length - 1] = m[1] === '0' ? BigInt(m[2]) : null;
  }
  return reads;
}

const PER_DIRECTION = new Set(['bs', 'blockalign', 'rate', 'rate_iops']);

/** What fio's number for `name` should be, from the options volbench read for the same line. */
function expectedNumbers(name: string, o: JobOptions): Array<bigint | null> | undefined {
  const field = findOption(name)?.field;
  if (field === undefined) return undefined;
  const value = o[field] as unknown;
  const big = (x: number) => BigInt(x);
  if (field.endsWith('_ns')) return [big((value as number) / 1000)];
  if (typeof value === 'number') return [big(value)];
  if (typeof value === 'bigint') return [value];
  if (typeof value === 'boolean') return [big(Number(value))];
  if (PER_DIRECTION.has(field)) return (value as number[]).map(big);
  if (value && typeof value === 'object' && 'bytes' in value) return [big((value as { bytes: number }).bytes)];
  return undefined;
}

describe.skipIf(fioVersion === null)(`fio (${fioVersion ?? 'absent'}) reads printed job files`, () => {
  const dir = mkdtempSync(join(tmpdir(), `vb-print-${process.pid}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Files fio takes: no volbench-only option, no io_uring option without ioengine=io_uring.
  const specs = fc.sample(jobFileText({ fio: true }), { numRuns: 60, seed: 20240611 })
    .flatMap((text) => {
      try {
        return [parse(text)];
      } catch {
        return [];
      }
    })
    .slice(0, 8);

  it.each(specs.map((spec, i) => [i, spec] as const))('printed spec %i: fio --parse-only accepts it and reads the same numbers', (i, spec) => {
    const path = join(dir, `spec${i}.fio`);
    writeFileSync(path, printJobFile(spec));
    const run = spawnSync('fio', ['--parse-only', '--debug=parse', path], { encoding: 'utf8', timeout: 30_000 });
    // fio prints its complaints (Bad option, job dropped) on stderr, its debug lines on stdout.
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const hasGlobal = printJobFile(spec).startsWith('[global]');
    let compared = 0;
    for (const read of fioReads(run.stdout)) {
      const job = hasGlobal ? Math.max(0, read.section - 1) : read.section;
      const want = expectedNumbers(read.name, spec.jobs[job].options);
      if (want === undefined) continue;
      read.outs.forEach((out, slot) => {
        if (out === null || want[slot] === undefined) return;
        expect(out, `${read.name} slot ${slot} in section ${read.section}`).toBe(want[slot]);
        compared++;
      });
    }
    // What fio printed, should its debug lines not be the ones read above.
    expect(compared, `no number compared; fio printed:\n${run.stdout.slice(0, 1500)}\njob file:\n${printJobFile(spec)}`).toBeGreaterThan(0);
  });
});
