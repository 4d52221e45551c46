/**
 * io_uring's registered buffers and files are volbench's default (fio registers neither unless
 * asked with fixedbufs and registerfiles), and they change the figures (1.07–1.51× on a held-out
 * job), so a result says when they were used: at the end of the normal text's job line and in
 * the volbench section, never in fio's option echo, which holds what the user wrote.
 *
 * Broke: nothing a fio user reads showed it; the volbench section said only whether buffers were
 * registered. Expected: the job line names what was registered, `registered_files` beside
 * `buffers.registered`, the echo as fio's; with fixedbufs=0 registerfiles=0, fio's line as is.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { makeWorkspace, runFio, runVolbenchCli, titled, type Workspace } from './side-by-side.js';
import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs', 'fio', 'io_uring');

const reason = needs.missing('fio', 'io_uring');
const JOB_LINE = /^rr: \(groupid=0, jobs=1\): err= 0: pid=\d+: \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}(.*)$/m;

describe.skipIf(reason !== undefined)(titled('what io_uring registered is said, not echoed', reason), () => {
  let ws: Workspace;
  const job = (extra: string[]): string[] => ['--name=rr', `--filename=${join(ws.dir, 'target.bin')}`, '--size=4m',
    '--rw=randread', '--bs=4k', '--ioengine=io_uring', '--iodepth=4', '--direct=1', ...extra];
  beforeAll(() => {
    ws = makeWorkspace('memory', 'registered');
  });
  afterAll(() => ws?.remove());

  it('by default: files registered (buffers not, on tmpfs), said on the job line and in the volbench section', async () => {
    const json = await runVolbenchCli([...job([]), '--output-format=json'], ws.volbenchDir);
    const fio = await runFio([...job([]), '--output-format=json'], ws.fioDir);
    const vb = json.json.volbench.jobs[0];
    expect(vb.registered_files).toBe(true);
    expect(vb.buffers.registered).toBe(false);
    expect(json.json.jobs[0]['job options']).toEqual(fio.json.jobs[0]['job options']);
    const normal = await volbench(['run', ...job([]), '--output-format=normal']);
    expect(normal.code, normal.stderr).toBe(0);
    expect(JOB_LINE.exec(normal.stdout)?.[1]).toBe('; io_uring with registered files');
  });

  it('fixedbufs=1 adds the buffers', async () => {
    const normal = await volbench(['run', ...job(['--fixedbufs=1']), '--output-format=normal']);
    expect(JOB_LINE.exec(normal.stdout)?.[1]).toBe('; io_uring with registered buffers and files');
  });

  it("with fixedbufs=0 registerfiles=0 (fio's behaviour) the line is fio's and the section says none", async () => {
    const extra = ['--fixedbufs=0', '--registerfiles=0'];
    const json = await runVolbenchCli([...job(extra), '--output-format=json'], ws.volbenchDir);
    const fio = await runFio([...job(extra), '--output-format=json'], ws.fioDir);
    expect(json.json.volbench.jobs[0].registered_files).toBe(false);
    expect(json.json.volbench.jobs[0].buffers.registered).toBe(false);
    expect(json.json.jobs[0]['job options']).toEqual(fio.json.jobs[0]['job options']);
    const normal = await volbench(['run', ...job(extra), '--output-format=normal']);
    expect(JOB_LINE.exec(normal.stdout)?.[1]).toBe('');
  });
});
