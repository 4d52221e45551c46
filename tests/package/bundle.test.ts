/**
 * `npm run bundle -- --arch x64|arm64` makes a self-contained tarball with its SHA-256 beside it
 * (the run's global setup makes each bundle once, from the run's packed tarball, and keeps it in
 * VOLBENCH_CACHE while its inputs stay the same: tests/helpers/fixture-service.ts).
 * Unpacked, the x64 bundle runs a job in a Debian 11 root (glibc 2.31, older than Amazon Linux
 * 2023's) through its launcher, with nothing on PATH but coreutils, in a network namespace with no
 * route; the arm64 bundle runs its own Node and addon under qemu-user against Debian 11's arm64
 * glibc, also with no network. (The launcher is a sh script, the same for both; without binfmt_misc
 * this machine cannot exec an arm64 binary by name, so the arm64 Node is started through qemu.)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fixture } from '../helpers/fixtures.js';
import { QEMU, firstJob, pkgVersion, runAsync, runRoot } from '../helpers/packaging.js';
import { requires } from '../helpers/requires.js';

const needs = requires('bundle', 'debian', 'qemu');

const skip = needs.missing('debian');
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), `volbench-bundle-${process.pid}-`));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }), 300_000);

/** The run's bundle for `arch`: what the script wrote, its digest checked, unpacked; the unpacked tree. */
async function buildAndUnpack(arch: 'x64' | 'arm64'): Promise<string> {
  const out = await fixture(`bundle-${arch}`);
  const name = `volbench-${pkgVersion}-linux-${arch}`;
  // What `npm run bundle` wrote into its --out directory (the tree itself is not kept).
  const made = JSON.parse(readFileSync(join(out, 'made.json'), 'utf8')) as { made: string[] };
  expect(made.made).toEqual([name, `${name}.tar.gz`, `${name}.tar.gz.sha256`]);
  expect(existsSync(join(out, `${name}.tar.gz`))).toBe(true);
  const check = await runAsync('sha256sum', ['-c', `${name}.tar.gz.sha256`], { cwd: out });
  expect(check.stdout.trim(), check.stderr).toBe(`${name}.tar.gz: OK`);
  const unpacked = join(tmp, `unpacked-${arch}`);
  mkdirSync(unpacked);
  expect((await runAsync('tar', ['xzf', join(out, `${name}.tar.gz`), '-C', unpacked])).status).toBe(0);
  const tree = join(unpacked, name);
  expect(readdirSync(tree).sort()).toEqual(['BUNDLE.md', 'bin', 'lib', 'node']);
  expect(readdirSync(join(tree, 'lib', 'volbench', 'prebuilds')).sort()).toEqual([`linux-${arch}`, 'manifest.json']);
  expect(statSync(join(tree, 'bin', 'volbench')).mode & 0o111).toBe(0o111);
  for (const absent of ['native', 'binding.gyp', 'install', 'scripts', 'build', 'tests']) {
    expect(() => statSync(join(tree, 'lib', 'volbench', absent)), absent).toThrow();
  }
  return tree;
}

const JOB = ['run', '--name=bundled', '--filename=/tmp/bundle-job.dat', '--size=4m', '--rw=randrw', '--bs=4k', '--ioengine=psync', '--direct=0', '--output-format=json'];

describe.skipIf(skip !== undefined)(`the bundle${skip ? ` [skipped: ${skip}]` : ''}`, () => {
  it('x64: runs a job in Debian 11 through its launcher, coreutils alone on PATH, no network', async () => {
    const tree = await buildAndUnpack('x64');
    const root = runRoot();
    // All of it in namespaces of its own: the root's /tmp a fresh tmpfs, the bundle lent read-only,
    // PATH a directory of links to coreutils' programs and nothing else, no network but a down lo.
    const script = join(tmp, 'in-root.sh');
    writeFileSync(script, `set -e
r=${JSON.stringify(root)}
mount -t tmpfs tmpfs "$r/tmp"
mkdir "$r/tmp/bundle" "$r/tmp/coreutils"
mount --bind -o ro ${JSON.stringify(tree)} "$r/tmp/bundle"
mount -t proc proc "$r/proc"
for f in $(grep -E '^(/usr)?/bin/[^/]+$' "$r/var/lib/dpkg/info/coreutils.list"); do ln -s "$f" "$r/tmp/coreutils/"; done
echo "routes: $(tail -n +2 /proc/net/route | wc -l) interfaces: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' ')" >&2
chroot "$r" /usr/bin/env -i PATH=/tmp/coreutils HOME=/tmp /bin/sh -c 'command -v node sh bash python3 >&2 || true; cd /tmp && /tmp/bundle/bin/volbench ${JOB.join(' ')}'
`);
    const ran = await runAsync('unshare', ['--mount', '--net', '--propagation', 'private', 'sh', script], { timeoutMs: 300_000 });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('routes: 0 interfaces: lo ');
    // Within the root, PATH finds none of these: the launcher needs only /bin/sh and coreutils.
    expect(ran.stderr).not.toMatch(/^\/.*\/(node|sh|bash|python3)$/m);
    const { job, engine } = firstJob(ran.stdout);
    expect(job.jobname).toBe('bundled');
    expect(job.read.io_bytes + job.write.io_bytes).toBe(4 * 1024 * 1024);
    expect(engine).toBe('psync');
  }, 900_000);

  const qemuSkip = needs.missing('qemu');
  it.skipIf(qemuSkip !== undefined)(`arm64: its Node and addon run a job under qemu-user on Debian 11's glibc, no network${qemuSkip ? ` [skipped: ${qemuSkip}]` : ''}`, async () => {
    const tree = await buildAndUnpack('arm64');
    const sysroot = join(runRoot(), 'usr', 'aarch64-linux-gnu');
    const work = join(tmp, 'arm64-job');
    mkdirSync(work);
    const args = JOB.map((a) => a.replace('/tmp/bundle-job.dat', join(work, 'job.dat')));
    const ran = await runAsync('/usr/bin/unshare', ['--net', QEMU, '-L', sysroot, join(tree, 'node', 'bin', 'node'), join(tree, 'lib', 'volbench', 'dist', 'cli', 'main.js'), ...args], {
      cwd: work, env: { PATH: '/nonexistent', HOME: work }, timeoutMs: 300_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const { job, engine } = firstJob(ran.stdout);
    expect(job.read.io_bytes + job.write.io_bytes).toBe(4 * 1024 * 1024);
    expect(engine).toBe('psync');
    expect(readFileSync(join(tree, 'BUNDLE.md'), 'utf8')).toContain(`volbench ${pkgVersion} for Linux arm64`);
  }, 900_000);
});
