/**
 * fio's "job options" and "global options" echo, pinned to real fio 3.33 output: a job file
 * echoes each section's options in fio's priority order (filename last), a command line in the
 * order typed; options given without a value are not echoed.
 */
import { describe, expect, it } from 'vitest';

import { parseFioArgs, parseJobFile, parseSpec } from '../../src/jobspec/index.js';
import { requires } from '../helpers/requires.js';
import { sampleCommand, sampleJson, specFixture } from './samples.js';

requires();

const asObject = (entries: Array<[string, string]> | undefined) => (entries ? Object.fromEntries(entries) : undefined);

describe('echo of options as fio prints them', () => {
  it('10-jobfile.fio gives exactly the global and job options of its fio JSON', () => {
    const parsed = parseSpec(parseJobFile(specFixture('10-jobfile.fio')));
    const fio = sampleJson('10-jobfile-global-2groups.json');
    // Compare as ordered lists: key order is part of fio's output.
    expect(parsed.globalOptions).toEqual(Object.entries(fio['global options'] ?? {}));
    expect(parsed.jobs.map((j) => j.ownOptions)).toEqual(fio.jobs.map((j) => Object.entries(j['job options'])));
    expect(parsed.jobs.map((j) => j.options.name)).toEqual(fio.jobs.map((j) => j.jobname));
  });

  it('the command line of sample 01 gives exactly its job options, in the order typed', () => {
    const args = parseFioArgs(sampleCommand('01-randread-qd32-iouring.json'));
    const parsed = parseSpec(args.spec);
    const fio = sampleJson('01-randread-qd32-iouring.json');
    expect(parsed.globalOptions).toBeUndefined();
    expect(parsed.jobs[0].ownOptions).toEqual(Object.entries(fio.jobs[0]['job options']));
    expect(args.outputFormats).toEqual(['json']);
    expect(args.output).toBe('fio-reference/01-randread-qd32-iouring.json');
  });

  it('the command line of sample 19 keeps a quoted description and the typed order', () => {
    const parsed = parseSpec(parseFioArgs(sampleCommand('19-rate_iops2000-description.json')).spec);
    const fio = sampleJson('19-rate_iops2000-description.json');
    expect(asObject(parsed.jobs[0].ownOptions)).toEqual(fio.jobs[0]['job options']);
    expect(parsed.jobs[0].ownOptions).toEqual(Object.entries(fio.jobs[0]['job options']));
  });

  it('command-line options before --name are echoed as global options', () => {
    const parsed = parseSpec(parseFioArgs(['--ioengine=null', '--size=1m', '--name=a', '--blockalign=4k', '--readwrite=read', '--timeout=1']).spec);
    // Checked against fio 3.33: aliases echo under fio's canonical names (ba, rw, runtime).
    expect(parsed.globalOptions).toEqual([['ioengine', 'null'], ['size', '1m']]);
    expect(parsed.jobs[0].ownOptions).toEqual([['name', 'a'], ['ba', '4k'], ['rw', 'read'], ['runtime', '1']]);
  });

  it('a global section of bare flags echoes as an empty list, as fio prints {}', () => {
    const parsed = parseSpec(parseFioArgs(['--time_based', '--runtime=1', '--name=a']).spec);
    expect(parsed.globalOptions).toEqual([['runtime', '1']]);
    const flagsOnly = parseSpec({ global: { group_reporting: true }, jobs: [{ name: 'a' }] });
    expect(flagsOnly.globalOptions).toEqual([]);
  });

  it('a flag given with a value is echoed with it', () => {
    const parsed = parseSpec(parseFioArgs(['--name=a', '--time_based=1', '--runtime=2', '--group_reporting=0']).spec);
    expect(parsed.jobs[0].ownOptions).toEqual([['name', 'a'], ['time_based', '1'], ['runtime', '2'], ['group_reporting', '0']]);
  });

  it('JSON numbers and booleans echo as fio strings', () => {
    const parsed = parseSpec({ jobs: [{ name: 'a', iodepth: 32, direct: true, time_based: true, norandommap: false }] });
    expect(parsed.jobs[0].ownOptions).toEqual([['name', 'a'], ['iodepth', '32'], ['direct', '1'], ['norandommap', '0']]);
  });

  it('a repeated option is echoed once, at its first place, with its last value', () => {
    const spec = parseJobFile('[a]\nbs=4k\nrw=read\nblocksize=8k\nbs=16k\n');
    const parsed = parseSpec(spec);
    expect(parsed.jobs[0].ownOptions).toEqual([['bs', '16k'], ['rw', 'read']]);
    expect(parsed.jobs[0].options.bs).toEqual([16384, 16384, 16384]);
  });

  it('a job file section name is not echoed, a name= line is', () => {
    const parsed = parseSpec(parseJobFile('[a]\nrw=read\n[b]\nrw=write\nname=bee\n'));
    expect(parsed.jobs.map((j) => j.options.name)).toEqual(['a', 'bee']);
    expect(parsed.jobs[0].ownOptions).toEqual([['rw', 'read']]);
    expect(parsed.jobs[1].ownOptions).toEqual([['rw', 'write'], ['name', 'bee']]);
  });

  it('job file sections apply kb_base first and filename last, ioengine options after all', () => {
    const spec = parseJobFile('[a]\nfilename=/tmp/x\nhipri=1\nbs=4k\nkb_base=1000\n');
    const parsed = parseSpec(spec);
    expect(parsed.jobs[0].ownOptions).toEqual([['kb_base', '1000'], ['bs', '4k'], ['filename', '/tmp/x'], ['hipri', '1']]);
    expect(parsed.jobs[0].options.bs).toEqual([4000, 4000, 4000]);
  });

  it('allow_block_write, volbench’s own option, is never echoed', () => {
    const parsed = parseSpec({ jobs: [{ name: 'a', allow_block_write: 1 }] });
    expect(parsed.jobs[0].ownOptions).toEqual([['name', 'a']]);
    expect(parsed.jobs[0].options.allow_block_write).toBe(true);
  });
});
