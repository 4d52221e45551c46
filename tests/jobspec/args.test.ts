/**
 * fio's command line (init.c parse_cmd_line): --name starts a job, earlier options are global,
 * positional arguments are job files; fio's own command flags volbench lacks are refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { parseFioArgs, parseSpec } from '../../src/jobspec/index.js';
import { specFixturePath } from './samples.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';
import { PARSE_BUDGET_MS, timed } from '../helpers/timing.js';

requires();

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempJobFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), `volbench-spec-${process.pid}-`));
  tempDirs.push(dir);
  const path = join(dir, 'job.fio');
  writeFileSync(path, text);
  return path;
}

describe('command-line options', () => {
  it('options before the first --name are global, --name starts each job', () => {
    const args = parseFioArgs(['--size=1g', '--name=a', '--rw=read', '--name=b', '--rw=write']);
    expect(args.spec).toEqual({
      global: { size: '1g' },
      jobs: [{ name: 'a', rw: 'read' }, { name: 'b', rw: 'write' }],
    });
    expect(args.outputFormats).toEqual(['normal']);
    expect(args.output).toBeUndefined();
    expect(args.jobFiles).toEqual([]);
  });

  // Broke: kb_base was applied first, so --bs=4k --kb_base=1000 made bs 4000 (and a direct job
  // was refused), where fio, reading in order, keeps 4096.
  it('reads each size with the kb_base given before it, as fio reads its options in order', () => {
    const options = (argv: string[]) => parseSpec(parseFioArgs(argv).spec).jobs[0].options;
    expect(options(['--name=a', '--bs=4k', '--kb_base=1000', '--size=1m'])).toMatchObject({ bs: [4096, 4096, 4096], size: { bytes: 1e6 } });
    expect(options(['--name=a', '--kb_base=1000', '--bs=4k'])).toMatchObject({ bs: [4000, 4000, 4000], kb_base: 1000 });
    expect(options(['--kb_base=1000', '--name=a', '--bs=4k'])).toMatchObject({ bs: [4000, 4000, 4000] });
  });

  it('an option that needs a value may take it from the next argument', () => {
    expect(parseFioArgs(['--name', 'a', '--bs', '8k']).spec.jobs[0]).toEqual({ name: 'a', bs: '8k' });
  });

  it('a flag takes no next argument: --time_based alone, or --time_based=1', () => {
    const args = parseFioArgs(['--name=a', '--time_based', '--group_reporting=1', '--runtime=2']);
    expect(args.spec.jobs[0]).toEqual({ name: 'a', time_based: true, group_reporting: '1', runtime: '2' });
  });

  it('a single dash works as with getopt_long_only', () => {
    expect(parseFioArgs(['-name=a', '-bs=8k']).spec.jobs[0]).toEqual({ name: 'a', bs: '8k' });
  });

  it('--name=global opens a global section that applies to the jobs after it', () => {
    const spec = parseFioArgs(['--name=a', '--name=global', '--bs=8k', '--name=b']).spec;
    expect(spec.jobs).toEqual([{ name: 'a' }, { bs: '8k', name: 'b' }]);
  });

  it('--allow_block_write is a spec option, global or per job', () => {
    const parsed = parseSpec(parseFioArgs(['--allow_block_write', '--name=a']).spec);
    expect(parsed.jobs[0].options.allow_block_write).toBe(true);
  });

  it('a missing value is an EINVALID_ARGS error naming the option', () => {
    const err = errorOf(() => parseFioArgs(['--name=a', '--bs']));
    expect(err.code).toBe('EINVALID_ARGS');
    expect(err.message).toMatch(/--bs/);
    expect(errorOf(() => parseFioArgs(['--name=a', '--bs='])).code).toBe('EINVALID_ARGS');
  });

  it('no job at all is an error', () => {
    expect(errorOf(() => parseFioArgs(['--size=1g'])).code).toBe('EINVALID_ARGS');
  });

  it('an unknown option is EUNKNOWN_OPTION with a suggestion', () => {
    const err = errorOf(() => parseFioArgs(['--name=a', '--iodepht=4']));
    expect(err.code).toBe('EUNKNOWN_OPTION');
    expect(err.message).toBe("unknown option 'iodepht' in jobs[0]; did you mean 'iodepth'?");
    expect(err.field).toBe('jobs[0].iodepht');
    expect(errorOf(() => parseFioArgs(['--output-fromat=json', '--name=a'])).message).toMatch(/did you mean 'output-format'/);
  });

  it('an option name over 64 characters is refused at once, without a suggestion', () => {
    const { ms, error } = timed(() => parseFioArgs(['--name=a', `--${'x'.repeat(100_000)}=1`]));
    expect(ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(error).toMatchObject({ code: 'EUNKNOWN_OPTION', field: `jobs[0].${'x'.repeat(64)}…` });
    expect(error?.message).not.toMatch(/did you mean/);
  });

  /*
   * Regression: each option recounted the job sections before it to name its scope, so 10,000
   * --name= arguments took 0.6 s and the 90,000 that fit in 900 KB over a minute. Expected:
   * linear time, and no more jobs than fio runs (MAX_JOBS, 4096).
   */
  it("reads fio's 4096 --name= jobs in linear time and refuses more", () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `--name=j${i}`);
    const most = timed(() => parseFioArgs([...names(4096), '--bogus_option=1']));
    expect(most.ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(most.error?.field).toBe('jobs[4095].bogus_option');
    const over = timed(() => parseFioArgs(names(30_000)));
    expect(over.ms).toBeLessThan(PARSE_BUDGET_MS);
    expect(over.error).toMatchObject({ code: 'EINVALID_ARGS', field: '--name', accepted: 'at most 4096 jobs, as fio (MAX_JOBS)' });
  });

  it('a fio job option volbench lacks is EUNSUPPORTED_OPTION', () => {
    const err = errorOf(() => parseFioArgs(['--name=a', '--gtod_reduce=1']));
    expect(err.code).toBe('EUNSUPPORTED_OPTION');
    expect(err.message).toMatch(/fio option 'gtod_reduce' is not supported by volbench yet/);
  });

  it.each(['--client=host', '--parse-only', '--eta=never', '--trigger-file=x'])(
    'fio command flag %s is refused as not supported yet, with what is accepted',
    (flag) => {
      const err = errorOf(() => parseFioArgs([flag, '--name=a']));
      expect(err.code).toBe('EUNSUPPORTED_OPTION');
      expect(err.message).toMatch(/not supported by volbench yet/);
      expect(err.accepted).toMatch(/--output-format, --readonly, --section, --status-interval, --eta-newline/);
    },
  );

  it('takes --readonly, --section, --status-interval and --eta-newline with fio\'s values', () => {
    const args = parseFioArgs(['--readonly', '--status-interval', '2', '--eta-newline=500ms', '--name=a']);
    expect(args).toMatchObject({ readonly: true, statusIntervalMs: 2000, etaNewlineMs: 500, jobSections: [] });
    expect(errorOf(() => parseFioArgs(['--readonly=1', '--name=a']))).toMatchObject({ code: 'EINVALID_ARGS', field: '--readonly' });
    expect(errorOf(() => parseFioArgs(['--section=global', '--name=a']))).toMatchObject({ code: 'EINVALID_ARGS', field: '--section' });
    expect(errorOf(() => parseFioArgs(['--status-interval=10us', '--name=a']))).toMatchObject({ code: 'EINVALID_ARGS', field: '--status-interval' });
    expect(errorOf(() => parseFioArgs(['--eta-newline=fast', '--name=a']))).toMatchObject({ code: 'EINVALID_VALUE', field: '--eta-newline' });
    expect(errorOf(() => parseFioArgs(['--section=x', '--name=a']))).toMatchObject({ code: 'EINVALID_ARGS', field: '--section' });
  });
});

describe('--output-format and --output', () => {
  it('take json, json+ and normal, comma separated', () => {
    expect(parseFioArgs(['--name=a', '--output-format=json']).outputFormats).toEqual(['json']);
    expect(parseFioArgs(['--name=a', '--output-format=json,normal']).outputFormats).toEqual(['json', 'normal']);
    expect(parseFioArgs(['--name=a', '--output-format', 'normal,json+']).outputFormats).toEqual(['normal', 'json+']);
    // fio prints one JSON document, json+ when both are asked for.
    expect(parseFioArgs(['--name=a', '--output-format=json,json+']).outputFormats).toEqual(['json+']);
  });

  it('the last one given wins, as fio resets its format each time', () => {
    expect(parseFioArgs(['--output-format=json', '--name=a', '--output-format=normal']).outputFormats).toEqual(['normal']);
  });

  it('terse (fio\'s minimal, csv) and --minimal print the terse lines; anything else is invalid', () => {
    expect(parseFioArgs(['--name=a', '--output-format=terse']).outputFormats).toEqual(['terse']);
    expect(parseFioArgs(['--name=a', '--output-format=minimal,json']).outputFormats).toEqual(['terse', 'json']);
    expect(parseFioArgs(['--name=a', '--output-format=csv']).outputFormats).toEqual(['terse']);
    // --minimal replaces the formats, as fio's -m.
    expect(parseFioArgs(['--output-format=json', '--name=a', '--minimal']).outputFormats).toEqual(['terse']);
    expect(errorOf(() => parseFioArgs(['--name=a', '--minimal=1'])).code).toBe('EINVALID_ARGS');
    const err = errorOf(() => parseFioArgs(['--name=a', '--output-format=xml']));
    expect(err.code).toBe('EINVALID_ARGS');
    expect(err.accepted).toMatch(/json\+/);
  });

  it('--output names the output file', () => {
    expect(parseFioArgs(['--name=a', '--output=out.json']).output).toBe('out.json');
    expect(parseFioArgs(['--name=a', '--output', 'out.json']).output).toBe('out.json');
  });
});

describe('job files on the command line', () => {
  it('are read and parsed, with flags after them still read as options', () => {
    const args = parseFioArgs([specFixturePath('10-jobfile.fio'), '--output-format=json']);
    expect(args.jobFiles).toEqual([specFixturePath('10-jobfile.fio')]);
    expect(args.spec.jobs.map((j) => j.name)).toEqual(['seqread-1m', 'randwrite-4k']);
    expect(args.outputFormats).toEqual(['json']);
  });

  it("command-line globals apply first, so the job file's [global] wins where both set an option", () => {
    const path = tempJobFile('[global]\nruntime=1\nsize=1m\n[a]\n');
    const args = parseFioArgs([path, '--runtime=3', '--iodepth=2']);
    // Checked against fio 3.33: global options runtime=1 (from the file), iodepth=2.
    expect(args.spec.global).toEqual({ runtime: '1', iodepth: '2', size: '1m' });
    const parsed = parseSpec(args.spec);
    expect(parsed.jobs[0].options.runtime_ns).toBe(1e9);
    expect(parsed.jobs[0].options.iodepth).toBe(2);
  });

  it('--name jobs come first, and a job file [global] does not reach them', () => {
    const path = tempJobFile('[global]\nbs=8k\n[f]\n');
    const parsed = parseSpec(parseFioArgs(['--iodepth=2', '--name=c', path]).spec);
    expect(parsed.jobs.map((j) => [j.options.name, j.options.bs[0], j.options.iodepth])).toEqual([['c', 4096, 2], ['f', 8192, 2]]);
  });

  it('a second job file starts from the defaults and waits for the first (stonewall)', () => {
    const first = tempJobFile('[global]\nbs=8k\n[f1]\n');
    const second = tempJobFile('[global]\niodepth=4\n[f2]\n[f3]\n');
    const parsed = parseSpec(parseFioArgs(['--size=1m', '--name=c', first, second]).spec);
    const rows = parsed.jobs.map((j) => [j.options.name, j.options.bs[0], j.options.iodepth, j.options.size, j.options.stonewall]);
    expect(rows).toEqual([
      ['c', 4096, 1, { bytes: 1048576 }, false],
      ['f1', 8192, 1, { bytes: 1048576 }, false],
      ['f2', 4096, 4, undefined, true],
      ['f3', 4096, 4, undefined, false],
    ]);
  });

  it('a job file that cannot be read is EJOBFILE', () => {
    const err = errorOf(() => parseFioArgs(['/nonexistent/volbench/job.fio']));
    expect(err.code).toBe('EJOBFILE');
    expect(err.path).toBe('/nonexistent/volbench/job.fio');
  });

  it('job files take ${VAR} from the given environment', () => {
    const path = tempJobFile('[a]\nfilename=${TARGET}\n');
    expect(parseFioArgs([path], { env: { TARGET: '/dev/null' } }).spec.jobs[0].filename).toBe('/dev/null');
  });

  it('-- ends the options: what follows is a job file even if it starts with a dash', () => {
    const err = errorOf(() => parseFioArgs(['--name=a', '--', '--weird.fio']));
    expect(err.code).toBe('EJOBFILE');
    expect(err.path).toBe('--weird.fio');
  });
});
