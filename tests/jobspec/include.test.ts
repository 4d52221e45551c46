/**
 * `include FILE` in job files and fio's --section, read as fio reads them (init.c
 * __parse_jobs_ini): an included file's lines join the section it stands in, relative to the
 * including job file's directory, and --section runs only the named job sections, [global]
 * always applying.
 *
 * Broke: volbench refused `include` and --section outright, so job files that share their
 * common options through an include (or keep light/heavy variants as sections) did not run.
 * Expected: fio's options and I/O counts (tests/compat/jobfile-include.test.ts runs them
 * against fio); and since a job file is input like any other, an include that leads to a FIFO,
 * a device, a cycle, a nest too deep or more text than a job file may hold is refused, naming
 * the line.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseFioArgs, parseSpec } from '../../src/jobspec/index.js';
import { MAX_INCLUDE_DEPTH, MAX_JOB_FILE_LENGTH } from '../../src/jobspec/include.js';
import { errorOf } from '../helpers/errors.js';
import { requires } from '../helpers/requires.js';

// mkfifo, and process.chdir (which a worker thread may not call).
requires('child');

let dir: string;
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const optionsOf = (argv: string[]) => parseSpec(parseFioArgs(argv).spec).jobs.map((j) => j.options);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), `volbench-include-${process.pid}-`));
  mkdirSync(join(dir, 'inc'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('include', () => {
  it("joins the section it stands in, relative to the job file's directory, and nests", () => {
    write('inc/common.fio', 'bs=8k ; the block\n# a comment\n\nrw=randread\n');
    write('inc/deep.fio', 'include ../inc/deepest.fio\n');
    write('inc/deepest.fio', 'iodepth=4\n');
    const job = write('a.fio', '[global]\ninclude inc/common.fio\nsize=1m\n[one]\ninclude inc/deep.fio\nrw=read\n');
    const cwd = process.cwd();
    process.chdir(tmpdir());
    try {
      const [one] = optionsOf([job]);
      expect(one).toMatchObject({ name: 'one', bs: [8192, 8192, 8192], rw: 'read', iodepth: 4, size: { bytes: 1 << 20 } });
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a section header in an included file, as fio does', () => {
    write('inc/section.fio', '[other]\nbs=4k\n');
    const err = errorOf(() => parseFioArgs([write('b.fio', '[a]\ninclude inc/section.fio\n')]));
    expect(err.code).toBe('EJOBFILE');
    expect(err.message).toMatch(/^line 2: include .*section\.fio: line 1: no new sections in included files/);
  });

  it('refuses a file that includes itself, through others too', () => {
    write('inc/loop1.fio', 'include loop2.fio\n');
    write('inc/loop2.fio', 'include loop1.fio\n');
    expect(errorOf(() => parseFioArgs([write('c.fio', '[a]\ninclude inc/loop1.fio\n')])).message).toMatch(/includes itself/);
    const self = write('self.fio', '[a]\ninclude self.fio\n');
    expect(errorOf(() => parseFioArgs([self])).message).toMatch(/includes itself/);
  });

  it(`refuses includes nested deeper than ${MAX_INCLUDE_DEPTH}`, () => {
    for (let i = 0; i <= MAX_INCLUDE_DEPTH; i++) write(`inc/n${i}.fio`, i < MAX_INCLUDE_DEPTH ? `include n${i + 1}.fio\n` : 'bs=4k\n');
    const err = errorOf(() => parseFioArgs([write('d.fio', '[a]\ninclude inc/n0.fio\n')]));
    expect(err.message).toMatch(new RegExp(`deeper than ${MAX_INCLUDE_DEPTH}`));
    expect(err.accepted).toMatch(/regular file/);
  });

  it('reads a diamond of includes only up to what one job file may hold', () => {
    // Each level includes the next twice: 2^16 reads of a 40-byte file without a budget.
    for (let i = 0; i < 15; i++) write(`inc/d${i}.fio`, `include d${i + 1}.fio\ninclude d${i + 1}.fio\n`);
    write('inc/d15.fio', `description=${'x'.repeat(40)}\n`);
    const err = errorOf(() => parseFioArgs([write('e.fio', '[a]\ninclude inc/d0.fio\n')]));
    expect(err.message).toMatch(new RegExp(`${MAX_JOB_FILE_LENGTH} bytes a job file and its includes may hold`));
  });

  it('refuses what is not a regular file without reading it: a FIFO, a device, a directory', () => {
    const fifo = join(dir, 'inc/fifo');
    execFileSync('mkfifo', [fifo]);
    for (const target of [fifo, '/dev/zero', join(dir, 'inc')]) {
      const err = errorOf(() => parseFioArgs([write('f.fio', `[a]\ninclude ${target}\n`)]));
      expect(err.code, target).toBe('EJOBFILE');
      expect(err.message, target).toMatch(/is not a regular file/);
    }
    expect(errorOf(() => parseFioArgs([write('g.fio', '[a]\ninclude inc/missing.fio\n')])).message).toMatch(/cannot open .*ENOENT/);
    expect(errorOf(() => parseFioArgs([write('h.fio', 'include inc/common.fio\n[a]\n')])).message).toMatch(/outside of any \[section\]/);
  });
});

describe('--section', () => {
  it('runs only the named job sections, [global] always applying; a skipped section is not read', () => {
    const job = write('s.fio', '[global]\nsize=1m\n[light]\nbs=4k\n[heavy]\nbs=64k\n[broken]\nno_such_option=1\n');
    const jobs = optionsOf(['--section=heavy', job]);
    expect(jobs.map((o) => [o.name, o.bs[0], o.size])).toEqual([['heavy', 65536, { bytes: 1 << 20 }]]);
    expect(optionsOf(['--section=light', '--section', 'heavy', job]).map((o) => o.name)).toEqual(['light', 'heavy']);
    expect(errorOf(() => parseFioArgs(['--section=medium', job]))).toMatchObject({ code: 'EINVALID_ARGS', field: '--section' });
  });
});
