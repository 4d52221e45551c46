/**
 * The shipped suites' job files: what each holds (the workload its source prescribes), that the
 * package ships them, and that real fio accepts each and sees the same jobs volbench does.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { describeSuite, listSuites, loadSuite } from '../../src/suites/index.js';
import { parseSpec } from '../../src/jobspec/index.js';
import type { JobOptions } from '../../src/jobspec/types.js';
import { ROOT } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'fio');

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const SEC = 1e9;

const EXPECTED_JOBS: Record<string, string[]> = {
  ars: ['RND4K-Q1T1-write', 'RND64K-Q16T16-write', 'RND1M-Q1T1-write'],
  kdiskmark: [
    'SEQ1M-Q8T1-read', 'SEQ1M-Q1T1-read', 'RND4K-Q32T1-read', 'RND4K-Q1T1-read',
    'SEQ1M-Q8T1-write', 'SEQ1M-Q1T1-write', 'RND4K-Q32T1-write', 'RND4K-Q1T1-write',
  ],
  'kdiskmark-nvme': [
    'SEQ1M-Q8T1-read', 'SEQ128K-Q32T1-read', 'RND4K-Q32T16-read', 'RND4K-Q1T1-read',
    'SEQ1M-Q8T1-write', 'SEQ128K-Q32T1-write', 'RND4K-Q32T16-write', 'RND4K-Q1T1-write',
  ],
  'aws-ssd': ['RND16K-Q1T16-write', 'RND16K-Q1T16-read'],
  'aws-hdd': ['SEQ1M-Q8T1-read', 'SEQ1M-Q8T1-write'],
  initialize: ['SEQ1M-Q32T1-read'],
};

function options(name: string): JobOptions[] {
  return parseSpec(loadSuite(name).spec).jobs.map((j) => j.options);
}

/** The override fio needs to accept a suite: where its files go. */
function targetFlag(name: string): string {
  return loadSuite(name).target === 'block-device' ? '--filename=/dev/xvdf' : '--directory=/tmp';
}

describe('shipped suites', () => {
  it('are listed in order, each with a job file in the package', () => {
    expect(listSuites().map((s) => s.name)).toEqual(Object.keys(EXPECTED_JOBS));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('suites/');
    for (const s of listSuites()) expect(s.path).toBe(join(ROOT, 'suites', s.file));
  });

  it.each(Object.entries(EXPECTED_JOBS))('%s has its stable job names, one test per stonewall', (name, jobs) => {
    const opts = options(name);
    expect(opts.map((o) => o.name)).toEqual(jobs);
    expect(opts.slice(1).every((o) => o.stonewall)).toBe(true);
    expect(opts.every((o) => o.filename === undefined || o.filename.join(':') === 'kdiskmark.tmp')).toBe(true);
    expect(opts.every((o) => o.directory === undefined)).toBe(true);
  });

  it('ars holds the three tests of the article', () => {
    const [a, b, c] = options('ars');
    expect([a, b, c].map((o) => [o.rw, o.bs[1], o.numjobs, o.iodepth, o.size])).toEqual([
      ['randwrite', 4 * KiB, 1, 1, { bytes: 4 * GiB }],
      ['randwrite', 64 * KiB, 16, 16, { bytes: 256 * MiB }],
      ['randwrite', MiB, 1, 1, { bytes: 16 * GiB }],
    ]);
    for (const o of [a, b, c]) expect([o.runtime_ns, o.time_based, o.end_fsync, o.direct]).toEqual([60 * SEC, true, true, false]);
    expect(b.group_reporting).toBe(true);
  });

  it.each(['kdiskmark', 'kdiskmark-nvme'])('%s uses the options KDiskMark passes, 5 loops by default', (name) => {
    expect(loadSuite(name).loops).toBe(5);
    for (const o of options(name)) {
      expect([o.ioengine, o.direct, o.randrepeat, o.end_fsync, o.size, o.runtime_ns, o.time_based, o.group_reporting])
        .toEqual(['libaio', true, false, true, { bytes: GiB }, 5 * SEC, false, true]);
    }
    const shape = options(name).map((o) => `${o.rw}:${o.bs[0] / KiB}k:Q${o.iodepth}T${o.numjobs}`);
    expect(shape.slice(0, 4)).toEqual(
      name === 'kdiskmark'
        ? ['read:1024k:Q8T1', 'read:1024k:Q1T1', 'randread:4k:Q32T1', 'randread:4k:Q1T1']
        : ['read:1024k:Q8T1', 'read:128k:Q32T1', 'randread:4k:Q32T16', 'randread:4k:Q1T1'],
    );
  });

  it('aws-ssd and aws-hdd hold the commands of AWS\'s EBS guide', () => {
    for (const o of options('aws-ssd')) {
      expect([o.bs[0], o.direct, o.numjobs, o.size, o.time_based, o.runtime_ns, o.group_reporting, o.norandommap, o.ioengine, o.iodepth])
        .toEqual([16 * KiB, true, 16, { bytes: GiB }, true, 180 * SEC, true, true, 'psync', 1]);
    }
    expect(options('aws-ssd').map((o) => o.rw)).toEqual(['randwrite', 'randread']);
    for (const o of options('aws-hdd')) {
      expect([o.bs[0], o.direct, o.ioengine, o.iodepth, o.randrepeat, o.time_based, o.runtime_ns, o.size])
        .toEqual([MiB, true, 'libaio', 8, false, true, 180 * SEC, undefined]);
    }
    const [init] = options('initialize');
    expect([init.rw, init.bs[0], init.iodepth, init.ioengine, init.direct, init.size]).toEqual(['read', MiB, 32, 'libaio', true, undefined]);
  });

  it('--list shows each test as a fio command', () => {
    const text = describeSuite(loadSuite('kdiskmark'));
    expect(text).toContain('fio --name=RND4K-Q32T1-read --ioengine=libaio --direct=1');
    expect(text).toContain('--rw=randread --bs=4k --iodepth=32 --numjobs=1 --directory=<dir>');
  });
});

describe.skipIf(needs.missing('fio'))('real fio on the suite files', () => {
  it.each(Object.keys(EXPECTED_JOBS))('accepts %s with its target given on the command line', (name) => {
    const file = loadSuite(name).path;
    const parse = spawnSync('fio', ['--parse-only', file, targetFlag(name)], { encoding: 'utf8' });
    expect(parse.status, parse.stderr).toBe(0);
    expect(parse.stderr).toBe('');
    // --showcmd prints fio's reading of the file as one command line: same jobs, same order.
    const cmd = execFileSync('fio', ['--showcmd', file], { encoding: 'utf8' });
    expect([...cmd.matchAll(/--name=(\S+)/g)].map((m) => m[1])).toEqual(EXPECTED_JOBS[name]);
  });
});
