/**
 * fio's job file format (init.c __parse_jobs_ini): sections, options, comments, [global]
 * inheritance, environment and keyword substitution.
 */
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';

import { expandEnv } from '../../src/jobspec/expand.js';
import { parseJobFile, parseJobFileSections, parseSpec, type JobSpec } from '../../src/jobspec/index.js';
import { sectionsToSpec, type Section } from '../../src/jobspec/sections.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

requires();

describe('job file syntax', () => {
  it('sections become global and jobs; bare flags become true', () => {
    const spec = parseJobFile('[global]\nsize=1g\ntime_based\n[job1]\nrw=read\n');
    expect(spec).toEqual({ global: { size: '1g', time_based: true }, jobs: [{ name: 'job1', rw: 'read' }] });
  });

  it('whole-line and trailing comments with # and ; are dropped, as fio cuts at either', () => {
    const text = [
      '# a comment', '; another', '   # indented', '[global]', 'ioengine=null   # trailing', 'size=1m ; also',
      '[a]', 'description=hello # world', 'rw=read;write',
    ].join('\n');
    expect(parseJobFile(text)).toEqual({
      global: { ioengine: 'null', size: '1m' },
      jobs: [{ name: 'a', description: 'hello', rw: 'read' }],
    });
  });

  it('blanks around = and at line ends are ignored, CRLF too', () => {
    const spec = parseJobFile('[a]\r\n  iodepth = 4  \r\n\tbs=4k\r\n');
    expect(spec.jobs[0]).toEqual({ name: 'a', iodepth: '4', bs: '4k' });
  });

  it('a value keeps everything after the first =', () => {
    expect(parseJobFile('[a]\ndescription=a=b\n').jobs[0].description).toBe('a=b');
  });

  it('a section named global-anything is a global section, as fio matches the prefix', () => {
    expect(parseJobFile('[global-settings]\nbs=8k\n[a]\n').global).toEqual({ bs: '8k' });
  });

  it('options outside any section, bad headers and no jobs are EJOBFILE errors naming the line', () => {
    const outside = errorOf(() => parseJobFile('bs=4k\n[a]\n'));
    expect(outside.code).toBe('EJOBFILE');
    expect(outside.message).toMatch(/line 1/);
    expect(outside).toMatchObject({ field: 'line 1', accepted: expect.stringMatching(/section/) });
    expect(errorOf(() => parseJobFile('[a]\n[b\n'))).toMatchObject({ field: 'line 2', accepted: expect.stringMatching(/header/) });
    expect(errorOf(() => parseJobFile('[global]\n'))).toMatchObject({ field: 'jobfile', accepted: expect.stringMatching(/job section/) });
    expect(errorOf(() => parseJobFile('[a\nbs=4k\n')).message).toMatch(/line 1: section header/);
    expect(errorOf(() => parseJobFile('[]\n')).code).toBe('EJOBFILE');
    expect(errorOf(() => parseJobFile('[global]\nbs=4k\n')).message).toMatch(/no jobs/);
    expect(errorOf(() => parseJobFile('')).code).toBe('EJOBFILE');
  });

  it('an option volbench does not take is refused on its line, naming it as parseSpec would', () => {
    const unknown = errorOf(() => parseJobFile('[a]\nbs=4k\niodepht=4\n'));
    expect(unknown).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'jobs[0].iodepht', accepted: expect.stringMatching(/iodepth/) });
    expect(unknown.message).toBe("line 3: unknown option 'iodepht' in jobs[0]; did you mean 'iodepth'?");
    const fioOnly = errorOf(() => parseJobFile('[global]\ngtod_reduce=1\n[a]\n'));
    expect(fioOnly).toMatchObject({ code: 'EUNSUPPORTED_OPTION', field: 'global.gtod_reduce' });
    expect(errorOf(() => parseJobFile('[a]\n${N}=1\n', { N: 'bogus' })).field).toBe('jobs[0].bogus');
  });

  /*
   * Regression: unknown names were kept until parseSpec refused them, so a [global] after a job
   * with 10,000 distinct unknown names made each of 4,000 later jobs copy them all: 95 KB took
   * 29 s and 400 KB ran the process out of memory. Expected: refused on the first such line.
   */
  it('a [global] of thousands of unknown names between jobs is refused on its first line', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `o${i}=1`).join('\n');
    const { ms, error } = timed(() => parseJobFile(`[a]\n[global]\n${names}\n${'[x]\n'.repeat(4000)}`, {}));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error).toMatchObject({ code: 'EUNKNOWN_OPTION', field: 'global.o0' });
    expect(error?.message).toMatch(/^line 3: /);
  });

  it('an include in a job file given as text (the service\'s) is refused: it has no directory to include from', () => {
    const err = errorOf(() => parseJobFile('[a]\ninclude other.fio\n'));
    expect(err.code).toBe('EUNSUPPORTED_OPTION');
    expect(err.message).toMatch(/include/);
    expect(err.accepted).toMatch(/read from disk/);
  });

  /*
   * A job file posted to the service is up to its 1 MiB body limit. Expected: a file, a line or
   * a job count beyond what fio reads is refused at once, naming the line (or the file), and
   * everything below those bounds is read in linear time.
   */
  describe('bounds', () => {
    it('a job file over 1 MiB is refused at once', () => {
      const { ms, error } = timed(() => parseJobFile(`[a]\n${'#'.repeat(1024 * 1024)}\n`));
      expect(ms).toBeLessThan(PARSE_BUDGET_MS);
      expect(error).toMatchObject({ code: 'EJOBFILE', field: 'jobfile', accepted: expect.stringMatching(/at most 1048576 characters/) });
    });

    it("a line over fio's 8192-character buffer is refused, naming the line", () => {
      const { ms, error } = timed(() => parseJobFile(`[a]\nbs=4k\nfilename=${'f'.repeat(900_000)}\n`));
      expect(ms).toBeLessThan(PARSE_BUDGET_MS);
      expect(error).toMatchObject({ code: 'EJOBFILE', field: 'line 3', accepted: expect.stringMatching(/at most 8192 characters/) });
      expect(error?.message).toBe('line 3: the line is 900009 characters long, more than 8192');
      expect(parseJobFile(`[a]\nfilename=/${'f'.repeat(8181)}\n`).jobs[0].filename).toHaveLength(8182);
    });

    it('more than 4096 job sections are refused at the 4097th, as fio refuses more than MAX_JOBS', () => {
      const { ms, error } = timed(() => parseJobFile('[x]\n'.repeat(262_000)));
      expect(ms).toBeLessThan(PARSE_BUDGET_MS);
      expect(error).toMatchObject({ code: 'EJOBFILE', field: 'line 4097', accepted: 'at most 4096 jobs, as fio (MAX_JOBS)' });
      expect(parseJobFile('[global]\n[x]\n'.repeat(4096)).jobs).toHaveLength(4096);
    });

    it("a caller's job limit refuses the job over it as it is read (ELIMIT_EXCEEDED), naming its line", () => {
      const { ms, error } = timed(() => parseJobFile(`[global]\nbs=4k\n${'[x]\nrw=read\n'.repeat(80_000)}`, {}, { maxJobs: 64 }), 3, PARSE_BUDGET_MS / 4);
      expect(ms).toBeLessThan(PARSE_BUDGET_MS / 4);
      expect(error).toMatchObject({ code: 'ELIMIT_EXCEEDED', field: 'line 131', accepted: 'at most 64 instances per run' });
      expect(parseJobFile('[x]\n'.repeat(64), {}, { maxJobs: 64 }).jobs).toHaveLength(64);
    });

    it('more than 8192 sections are refused: 4096 jobs, each after a [global] of its own', () => {
      const { ms, error } = timed(() => parseJobFile(`[a]\n${'[global]\n'.repeat(116_000)}`));
      expect(ms).toBeLessThan(PARSE_BUDGET_MS);
      expect(error).toMatchObject({ code: 'EJOBFILE', field: 'line 8193', accepted: expect.stringMatching(/at most 8192 sections/) });
    });

    const KNOWN = [
      'rw=randrw', 'bs=4k,8k', 'iodepth=32', 'size=1g', 'runtime=10s', 'time_based', 'direct=1', 'ioengine=libaio',
      'numjobs=1', 'group_reporting', 'rwmixread=70', 'ba=4k', 'iodepth_batch=4', 'offset=0', 'thinktime=0',
      'invalidate=1', 'randrepeat=0', 'norandommap', 'fsync=0', 'end_fsync=0', 'loops=1', 'ramp_time=0',
      'startdelay=0', 'kb_base=1024', 'unlink=0',
    ];
    const nested = `numjobs=${'($ncpus+'.repeat(900)}1${')'.repeat(900)}\n`;

    /*
     * Regression: every line was kept until the whole file was read, and each section's options
     * sorted with two lookups per comparison: 1 MiB of one repeated option took 150 ms, most of
     * it in the garbage collector. Expected: a section holds one entry per option as it is read
     * (first place and spelling, last value), and every 1 MiB file reads well within the budget.
     */
    it('a section holds one entry per option, folded as it is read', () => {
      const [section] = parseJobFileSections(`[a]\nblocksize=4k\nrw=read\n${'bs=8k\n'.repeat(10)}filename=/f\nkb_base=1000\n`);
      expect(section.entries).toEqual([['kb_base', '1000'], ['blocksize', '8k'], ['rw', 'read'], ['filename', '/f']]);
    });

    it.each([
      ['one option repeated', `[a]\n${'bs=4k\n'.repeat(174_000)}`],
      ['3400 jobs of 25 options', `[j]\n${KNOWN.join('\n')}\n`.repeat(3400)],
      ['comment lines', `[a]\n${'; c\n'.repeat(262_000)}`],
      ['blank lines', `[a]\n${'\n'.repeat(1_000_000)}`],
      ['keyword arithmetic nested 900 deep', `[a]\n${nested.repeat(128)}`],
      ['unclosed ${', `[a]\n${`filename=${'${'.repeat(4000)}\n`.repeat(128)}`],
    ])('1 MiB of %s is read in linear time', (_, text) => {
      expect(text.length).toBeLessThanOrEqual(1024 * 1024);
      expect(text.length).toBeGreaterThan(900 * 1024);
      const { ms, error } = timed(() => parseJobFile(text, {}));
      expect(ms).toBeLessThan(PARSE_BUDGET_MS);
      if (error) expect(error.code).toBe('EJOBFILE');
    });
  });

  /*
   * Regression: folding a section into the options before it rebuilt the alias index from all
   * the keys gathered so far, once per section: 5,000 [global] sections of distinct names took
   * 2.4 s, 20,000 took 51 s. Expected: linear time.
   */
  it('many [global] sections fold in linear time', () => {
    const sections: Section[] = Array.from({ length: 5_000 }, (_, i) => ({ kind: 'global', entries: [[`o${i}`, '1']] }));
    sections.push({ kind: 'job', header: 'a', entries: [] }, { kind: 'global', entries: [['blocksize', '8k'], ['bs', '4k']] });
    sections.push({ kind: 'job', header: 'b', entries: [] });
    let spec: JobSpec | undefined;
    const { ms } = timed(() => (spec = sectionsToSpec(sections)));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(Object.keys(spec!.global!)).toHaveLength(5_000);
    expect(spec!.jobs).toEqual([{ name: 'a' }, { name: 'b', blocksize: '4k' }]);
  });

  it('a repeated option keeps its first place and its last value', () => {
    expect(parseJobFile('[a]\nbs=4k\nrw=read\nbs=8k\n').jobs[0]).toEqual({ name: 'a', bs: '8k', rw: 'read' });
  });
});

describe('[global] inheritance', () => {
  it('jobs start from [global] and their own options win', () => {
    const parsed = parseSpec(parseJobFile('[global]\nbs=8k\niodepth=4\n[a]\niodepth=16\n[b]\n'));
    expect(parsed.jobs.map((j) => [j.options.bs[0], j.options.iodepth])).toEqual([[8192, 16], [8192, 4]]);
  });

  it('a [global] after jobs applies only to the jobs after it', () => {
    const spec = parseJobFile('[global]\nbs=8k\n[a]\n[global]\niodepth=8\nbs=16k\n[b]\nbs=32k\n[c]\n');
    expect(spec.global).toEqual({ bs: '8k' });
    expect(spec.jobs).toEqual([
      { name: 'a' },
      { name: 'b', iodepth: '8', bs: '32k' },
      { name: 'c', iodepth: '8', bs: '16k' },
    ]);
    const parsed = parseSpec(spec);
    expect(parsed.jobs.map((j) => [j.options.bs[0], j.options.iodepth])).toEqual([[8192, 1], [32768, 8], [16384, 8]]);
  });

  it('a job section name wins over a [global] name=', () => {
    const parsed = parseSpec(parseJobFile('[global]\nname=everyone\n[a]\n[global]\nname=late\n[b]\n'));
    expect(parsed.jobs.map((j) => j.options.name)).toEqual(['a', 'b']);
  });

  it('kb_base in [global] applies to the jobs, kb_base in a job does not reach back into [global]', () => {
    const parsed = parseSpec(parseJobFile('[global]\nsize=1g\n[a]\nkb_base=1000\nbs=4k\n[b]\n[global]\nkb_base=1000\n[c]\nbs=4k\n'));
    const [a, b, c] = parsed.jobs.map((j) => j.options);
    expect([a.size, a.bs[0], a.kb_base]).toEqual([{ bytes: 1073741824 }, 4000, 1000]);
    expect([b.size, b.bs[0], b.kb_base]).toEqual([{ bytes: 1073741824 }, 4096, 1024]);
    expect([c.bs[0], c.kb_base]).toEqual([4000, 1000]);
  });
});

describe('substitutions', () => {
  it('${VAR} takes the value from the environment', () => {
    const spec = parseJobFile('[a]\nfilename=${DIR}/data.bin\nsize=${SIZE}\n', { DIR: '/mnt/bench', SIZE: '2g' });
    expect(spec.jobs[0]).toEqual({ name: 'a', filename: '/mnt/bench/data.bin', size: '2g' });
  });

  it('an unset variable is an error naming it (fio would silently use an empty string)', () => {
    const err = errorOf(() => parseJobFile('[global]\nfilename=${NO_SUCH_DEV}\n[a]\n', {}));
    expect(err.code).toBe('EJOBFILE');
    expect(err.message).toMatch(/NO_SUCH_DEV/);
    expect(err.message).toMatch(/line 2/);
    expect(err.field).toBe('global.filename');
  });

  it('a variable inside a comment is not expanded', () => {
    expect(parseJobFile('[a]\nbs=4k # ${UNSET}\n', {}).jobs[0].bs).toBe('4k');
  });

  it('$ncpus is the number of CPUs, with integer arithmetic as fio does through bc', () => {
    const n = cpus().length;
    const spec = parseJobFile('[a]\nnumjobs=$ncpus\niodepth=$ncpus*2+1\nthinktime_blocks=($ncpus+1)/2\n');
    expect(spec.jobs[0]).toMatchObject({ numjobs: String(n), iodepth: String(n * 2 + 1), thinktime_blocks: String(Math.trunc((n + 1) / 2)) });
  });

  it('$mb_memory and $pagesize are replaced too', () => {
    const spec = parseJobFile('[a]\nsize=$mb_memory\nbs=$pagesize\n');
    expect(Number(spec.jobs[0].size)).toBeGreaterThan(0);
    expect(Number(spec.jobs[0].bs) % 4096).toBe(0);
  });

  it('only the environment\'s own variables expand: ${constructor} is unset in an empty one', () => {
    const err = errorOf(() => parseJobFile('[a]\nfilename=/tmp/${constructor}\n', {}));
    expect(err.code).toBe('EJOBFILE');
    expect(err.message).toMatch(/'constructor' is not set/);
  });

  it('a ${ without a closing } is left as written; the name runs to the first }', () => {
    expect(parseJobFile('[a]\nfilename=/tmp/${X\n', { X: 'x' }).jobs[0].filename).toBe('/tmp/${X');
    expect(parseJobFile('[a]\nfilename=/${A${B}/${B}\n', { 'A${B': 'a', B: 'b' }).jobs[0].filename).toBe('/a/b');
  });

  /*
   * Regression: ${...} was replaced with /\$\{([^}]*)\}/g, which on a run of unclosed `${`
   * restarts at each one and reads to the end: 100,000 characters took 3.6 s, 900 KB minutes.
   * Expected: linear time, the unclosed run left as written.
   */
  it('expands a long run of unclosed ${ in linear time', () => {
    const text = '${'.repeat(50_000);
    const ctx = { env: {}, line: 1, field: 'jobs[0].filename' };
    let out = '';
    const { ms } = timed(() => (out = expandEnv(text, ctx)));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(out).toBe(text);
  });

  /*
   * The evaluator recursed once per sign or parenthesis without a bound: 8000 minus signs
   * overflowed the stack, which was refused only because the overflow happened to be caught.
   * Expected: 1000 levels are computed, more are refused as not computable, whatever the stack.
   */
  it('arithmetic nested up to 1000 deep is computed, deeper is refused', () => {
    const n = cpus().length;
    const deep = (levels: number) => `[a]\nnumjobs=$ncpus+${'('.repeat(levels)}${'-'.repeat(levels)}2${')'.repeat(levels)}\n`;
    expect(parseJobFile(deep(500)).jobs[0].numjobs).toBe(String(n + 2));
    const err = errorOf(() => parseJobFile(`[a]\nnumjobs=$ncpus+${'-'.repeat(1001)}1\n`));
    expect(err).toMatchObject({ code: 'EJOBFILE', field: 'jobs[0].numjobs' });
    expect(err.message).toMatch(/cannot compute/);
    expect(parseJobFile(`[a]\nnumjobs=$ncpus+${'-'.repeat(1000)}1\n`).jobs[0].numjobs).toBe(String(n + 1));
  });

  it('arithmetic that cannot be computed is an error', () => {
    const err = errorOf(() => parseJobFile('[a]\nfilename=/tmp/a-$ncpus\n'));
    expect(err.code).toBe('EJOBFILE');
    expect(err.message).toMatch(/cannot compute/);
  });
});
