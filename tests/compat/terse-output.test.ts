/**
 * `--minimal` and `--output-format=terse` print fio's terse v3 line per job: its fields in fio's
 * order (stat.c show_thread_status_terse_all), so a script that splits fio's line on ';' finds
 * the same figure at the same index in volbench's. Checked against fio 3.33 on the same job on
 * the real disk (disk util fields at the end) and on tmpfs (none), through the CLI as a user
 * runs it: the terse version, job name, group, error and KiB read are fio's; every field has
 * fio's form (integer, six decimals, a percentage, p=µs) at fio's index.
 *
 * Was refused before ("--output-format=terse is not supported by volbench yet").
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { makeWorkspace, titled, type Workspace } from './side-by-side.js';

const needs = requires('tmpfs', 'fio');
const reason = needs.missing('fio');

/** The shape of a terse field: what a parser of fio's lines relies on. */
function shape(field: string): string {
  if (/^\d+$/.test(field)) return 'integer';
  if (/^\d+\.\d{6}$/.test(field)) return 'six decimals';
  if (/^\d+\.\d{1,6}%$/.test(field)) return 'percent';
  if (/^(\d+\.\d{6}|0)%=\d+$/.test(field)) return 'percentile';
  return `text`;
}

interface Lines {
  fio: string[][];
  volbench: string[][];
}

async function both(ws: Workspace, file: string, extra: string[], flag: string[]): Promise<Lines> {
  const argv = ['--name=terse', `--filename=${join(ws.dir, file)}`, '--ioengine=psync', '--size=4m', ...extra];
  const fio = execFileSync('fio', [...argv, '--minimal'], { cwd: ws.fioDir, encoding: 'utf8' });
  const vb = await volbench(['run', ...argv, ...flag]);
  expect(vb.code, vb.stderr).toBe(0);
  const split = (text: string): string[][] => text.trim().split('\n').map((l) => l.split(';'));
  return { fio: split(fio), volbench: split(vb.stdout) };
}

const ON_DISK = 'randread on the disk, --minimal';
const GROUPED = 'randrw numjobs=2 group_reporting with a description, on tmpfs, --output-format=terse';
const BOTH = 'unified_rw_reporting=both, lat_percentiles, on tmpfs';

describe.skipIf(reason !== undefined)(titled('terse v3: fio\'s fields in fio\'s order', reason), () => {
  let disk: Workspace;
  let memory: Workspace;
  const runs = new Map<string, Lines>();

  beforeAll(async () => {
    disk = makeWorkspace('disk', 'terse');
    memory = makeWorkspace('memory', 'terse');
    runs.set(ON_DISK, await both(disk, 'r.bin', ['--rw=randread', '--bs=4k'], ['--minimal']));
    runs.set(GROUPED, await both(memory, 'rw.bin',
      ['--rw=randrw', '--bs=4k', '--numjobs=2', '--group_reporting', '--description=two jobs'], ['--output-format=terse']));
    runs.set(BOTH, await both(memory, 'u.bin',
      ['--rw=randrw', '--bs=4k', '--unified_rw_reporting=both', '--lat_percentiles=1'], ['--minimal']));
  }, 60_000);
  afterAll(() => {
    disk?.remove();
    memory?.remove();
  });

  it.each([ON_DISK, GROUPED, BOTH])('%s: one line per job entry, every field of fio\'s shape at fio\'s index', (name) => {
    const { fio, volbench: vb } = runs.get(name)!;
    expect(vb.length).toBe(fio.length);
    vb.forEach((fields, i) => {
      expect(fields.length).toBe(fio[i].length);
      // The version field names the tool (fio-3.33, volbench-x.y.z), as the JSON's does.
      expect(fields.map(shape).map((s, k) => (k === 1 ? 'version' : s))).toEqual(fio[i].map(shape).map((s, k) => (k === 1 ? 'version' : s)));
    });
  });

  it.each([ON_DISK, GROUPED, BOTH])('%s: terse version, job name, group, error and KiB read are fio\'s', (name) => {
    const { fio, volbench: vb } = runs.get(name)!;
    for (let i = 0; i < fio.length; i++) {
      const pick = (f: string[]): string[] => [f[0], f[2], f[3], f[4], f[5]];
      expect(pick(vb[i])).toEqual(pick(fio[i]));
      expect(vb[i][1]).toMatch(/^volbench-\d+\.\d+\.\d+/);
    }
  });

  it('a file on the disk ends with the disk\'s fields, named as fio names the device', () => {
    const { fio, volbench: vb } = runs.get(ON_DISK)!;
    expect(vb[0].at(-9)).toBe(fio[0].at(-9));
    expect(vb[0].at(-1)).toMatch(/^\d+\.\d\d%$/);
  });

  it('the description is the last field, as fio prints it', () => {
    const { fio, volbench: vb } = runs.get(GROUPED)!;
    expect(vb[0].at(-1)).toBe('two jobs');
    expect(fio[0].at(-1)).toBe('two jobs');
  });
});
