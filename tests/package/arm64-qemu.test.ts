/**
 * The arm64 prebuilt addon, cross-built on x64, run by the arm64 Node under qemu-user against
 * Debian 11's arm64 glibc (2.31). qemu-user 7.2 emulates neither io_uring nor openat2, which makes
 * it a machine where both are missing: the addon must load all the same, report io_uring (and
 * libaio, also not emulated) unavailable rather than fail, run psync, sync and null jobs, choose
 * psync when no engine is named, end a job that names io_uring with its error as fio does, and open files by walking each
 * component beneath its directory (the path taken without openat2), still refusing a symlink.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { QEMU, nodeDist, repoRoot, runAsync, runRoot } from '../helpers/packaging.js';
import { requires } from '../helpers/requires.js';

const needs = requires('qemu');

const skip = needs.missing('qemu');

// Runs inside the arm64 Node: the library from dist/ on the arm64 prebuilt, results as JSON.
const PROBE = `
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
const lib = await import(process.env.LIB);
const { nativeAddon } = await import(process.env.ADDON_MODULE);
const dir = process.env.WORK;
const job = (ioengine) => ({ name: 'j-' + (ioengine ?? 'auto'), filename: join(dir, 'f-' + (ioengine ?? 'auto')), size: '1m',
  rw: 'randrw', bs: '4k', direct: 0, ...(ioengine ? { ioengine } : {}) });
const out = { arch: process.arch, engines: lib.availableEngines(), jobs: {} };
for (const e of ['psync', 'sync', 'null', undefined]) {
  const r = await lib.runJobs({ jobs: [job(e)] });
  const j = r.jobs[0];
  out.jobs[e ?? 'auto'] = { bytes: j.read.io_bytes + j.write.io_bytes, error: j.error, engine: r.volbench.jobs[0].engine };
}
const u = await lib.runJobs({ jobs: [job('io_uring')] });
out.ioUring = { error: u.jobs[0].error, bytes: u.jobs[0].read.io_bytes + u.jobs[0].write.io_bytes,
  syscall: u.volbench.jobs[0].error_syscall, message: u.volbench.jobs[0].error_message };
const fd = openSync(join(dir, 'beneath'), 'r');
const id = (path) => { const st = statSync(path, { bigint: true }); return [st.dev, st.ino]; };
try {
  // The victim's own dev/ino: only the walk through the link may refuse it.
  out.removeThroughSymlink = await nativeAddon().removeFile({ dirFd: fd, name: 'link/victim' }, ...id(join(dir, 'outside', 'victim')));
  out.victimKept = existsSync(join(dir, 'outside', 'victim'));
  out.removePlain = await nativeAddon().removeFile({ dirFd: fd, name: 'sub/plain' }, ...id(join(dir, 'beneath', 'sub', 'plain')));
  out.plainGone = !existsSync(join(dir, 'beneath', 'sub', 'plain'));
} finally { closeSync(fd); }
console.log(JSON.stringify(out));
`;

describe.skipIf(skip !== undefined)(`the arm64 prebuilt under qemu-user${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  let work: string;
  let result: {
    arch: string; engines: string[]; jobs: Record<string, { bytes: number; error: number; engine: string }>;
    ioUring: { error: number; bytes: number; syscall: string; message: string }; removeThroughSymlink: number; victimKept: boolean; removePlain: number; plainGone: boolean;
  };
  let unimplemented: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), `volbench-arm64-${process.pid}-`));
    mkdirSync(join(work, 'beneath', 'sub'), { recursive: true });
    mkdirSync(join(work, 'outside'));
    writeFileSync(join(work, 'outside', 'victim'), 'keep me');
    writeFileSync(join(work, 'beneath', 'sub', 'plain'), 'remove me');
    symlinkSync(join(work, 'outside'), join(work, 'beneath', 'link'));
    writeFileSync(join(work, 'probe.mjs'), PROBE);
    const node = join(nodeDist('arm64'), 'bin', 'node');
    const log = join(work, 'qemu.log');
    const run = await runAsync(QEMU, ['-L', join(runRoot(), 'usr', 'aarch64-linux-gnu'), '-d', 'unimp', '-D', log, node, join(work, 'probe.mjs')], {
      cwd: repoRoot,
      env: {
        PATH: '/usr/bin:/bin', WORK: work,
        VOLBENCH_ADDON: join(repoRoot, 'prebuilds', 'linux-arm64', 'volbench.node'),
        LIB: join(repoRoot, 'dist', 'index.js'), ADDON_MODULE: join(repoRoot, 'dist', 'engine', 'addon.js'),
      },
    });
    expect(run.status, run.stderr).toBe(0);
    result = JSON.parse(run.stdout.trim().split('\n').pop()!);
    unimplemented = readFileSync(log, 'utf8');
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('runs as arm64 on a kernel (as qemu shows it) without io_uring_setup (425) and openat2 (437)', () => {
    expect(result.arch).toBe('arm64');
    expect(unimplemented).toMatch(/Unsupported syscall: 425\b/);
    expect(unimplemented).toMatch(/Unsupported syscall: 437\b/);
  });

  it('loads and reports io_uring unavailable instead of failing', () => {
    expect(result.engines).not.toContain('io_uring');
    expect(result.engines).toEqual(expect.arrayContaining(['psync', 'sync', 'null']));
  });

  it('runs psync, sync and null jobs whole, and psync when no engine is named', () => {
    for (const e of ['psync', 'sync', 'null']) expect(result.jobs[e], e).toEqual({ bytes: 1024 * 1024, error: 0, engine: e });
    expect(result.jobs.auto).toEqual({ bytes: 1024 * 1024, error: 0, engine: 'psync' });
  });

  it('ends a job that names io_uring with the job error fio would give (ENOSYS at io_uring_setup), not a crash', () => {
    expect(result.ioUring).toEqual({ error: 38, bytes: 0, syscall: 'io_uring_setup', message: expect.stringMatching(/^setting up the io_uring engine: /) });
  });

  it('opens beneath its directory without openat2: a symlink on the way is refused, a plain path works', () => {
    expect(result.removeThroughSymlink).toBeGreaterThan(0); // an errno (ELOOP or ENOTDIR)
    expect(result.victimKept).toBe(true);
    expect(result.removePlain).toBe(0);
    expect(result.plainGone).toBe(true);
  });
});
