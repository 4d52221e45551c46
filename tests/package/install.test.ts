/**
 * `npm install` of the packed tarball as a user would run it, with a warm npm cache: with no
 * compiler on PATH (no g++, cc, make or python3) it installs in under 60 s, builds nothing and
 * runs a job, on x64 and on arm64 under qemu-user. For arm64, npm's own JavaScript (the same on
 * every architecture) runs on this machine's Node with --cpu=arm64, while the package's install
 * script and the job run on the arm64 Node under qemu: emulating npm itself took four minutes
 * here, which measures qemu, not the install; with VOLBENCH_BUILD_FROM_SOURCE=1 it builds the
 * addon and says why first (npm shows a dependency's install output with --foreground-scripts);
 * asked to build with no compiler it fails saying what it needs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fixture } from '../helpers/fixtures.js';
import { childEnv, firstJob, nodeDist, pathDir, repoRoot, runAsync, runRoot, which, type Ran } from '../helpers/packaging.js';
import { requires } from '../helpers/requires.js';

const needs = requires('packaging', 'qemu');

const INSTALL_LIMIT_MS = 60_000;
let tmp: string;
let tarball: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), `volbench-install-${process.pid}-`));
  // The run's one npm pack of this checkout (the smoke tests on the other Nodes install it too).
  tarball = await fixture('tarball');
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }), 300_000);

function project(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `volbench-install-${name}`, version: '1.0.0', private: true }));
  return dir;
}

function npmInstall(cwd: string, bin: string, extra: string[] = []): Promise<Ran> {
  return runAsync(process.execPath, [which('npm'), 'install', '--prefer-offline', '--no-audit', '--no-fund', ...extra, tarball], { cwd, env: childEnv(bin) });
}

/** A small psync job through the installed package's `volbench` bin link. */
async function runJob(cwd: string, bin: string): Promise<void> {
  const run = await runAsync(join(cwd, 'node_modules', '.bin', 'volbench'), [
    'run', '--name=installed', `--filename=${join(cwd, 'job.dat')}`, '--size=4m', '--rw=randrw', '--bs=4k',
    '--ioengine=psync', '--direct=0', '--output-format=json',
  ], { cwd, env: childEnv(bin) });
  expect(run.status, run.stderr).toBe(0);
  const { job, engine } = firstJob(run.stdout);
  expect(job.jobname).toBe('installed');
  expect(job.read.io_bytes + job.write.io_bytes).toBe(4 * 1024 * 1024);
  expect(engine).toBe('psync');
}

const NO_COMPILER = 'command -v g++ c++ gcc cc make python3 python || true';

describe('npm install of the packed tarball, no compiler on PATH', () => {
  it('x64: installs in under 60 s from a warm cache, builds nothing, runs a job', async () => {
    const bin = pathDir(join(tmp, 'bin-x64'), { sh: which('sh'), npm: which('npm') }, { binary: process.execPath });
    expect(spawnSync(join(bin, 'sh'), ['-c', NO_COMPILER], { env: { PATH: bin }, encoding: 'utf8' }).stdout).toBe('');
    const cwd = project('x64');
    const install = await npmInstall(cwd, bin);
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE|building the native addon/);
    expect(install.ms).toBeLessThan(INSTALL_LIMIT_MS);
    expect(existsSync(join(cwd, 'node_modules', 'volbench', 'build'))).toBe(false);
    await runJob(cwd, bin);
  }, 300_000);

  const qemuSkip = needs.missing('qemu');
  it.skipIf(qemuSkip !== undefined)(`arm64 under qemu-user: installs with the arm64 Node, builds nothing, runs a job${qemuSkip ? ` [skipped: ${qemuSkip}]` : ''}`, async () => {
    const sysroot = join(runRoot(), 'usr', 'aarch64-linux-gnu');
    const bin = pathDir(join(tmp, 'bin-arm64'), { sh: which('sh'), npm: which('npm') }, { binary: join(nodeDist('arm64'), 'bin', 'node'), sysroot });
    expect(spawnSync(join(bin, 'node'), ['-p', 'process.arch'], { env: { PATH: bin }, encoding: 'utf8' }).stdout.trim()).toBe('arm64');
    const cwd = project('arm64');
    const install = await npmInstall(cwd, bin, ['--cpu=arm64']);
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE|building the native addon/);
    expect(install.ms).toBeLessThan(INSTALL_LIMIT_MS);
    // The install script ran on the arm64 Node, and chose to build nothing.
    expect(readFileSync(`${bin}.calls`, 'utf8')).toMatch(/install\/install\.mjs/);
    expect(existsSync(join(cwd, 'node_modules', 'volbench', 'build'))).toBe(false);
    await runJob(cwd, bin);
  }, 600_000);
});

/**
 * Where CI keeps its caches (VOLBENCH_CACHE) and ccache is installed, the build compiles through
 * ccache, keyed on the preprocessed sources and the compiler's flags, wherever the package is
 * unpacked (CCACHE_BASEDIR, CCACHE_NOHASHDIR): node-gyp still configures, compiles (from the cache
 * when nothing changed) and links, and the library loads what it linked. The compiles were 40–100 s
 * of the package queue.
 */
function compilerCache(cwd: string): Record<string, string> {
  const cache = process.env.VOLBENCH_CACHE;
  if (!cache || spawnSync('ccache', ['--version'], { stdio: 'ignore' }).status !== 0) return {};
  return { CC: 'ccache gcc', CXX: 'ccache g++', CCACHE_DIR: join(cache, 'ccache'), CCACHE_BASEDIR: cwd, CCACHE_NOHASHDIR: '1' };
}

describe('the source build fallback', () => {
  it('VOLBENCH_BUILD_FROM_SOURCE=1 builds the addon with the compiler, saying why, and the library loads that build', async () => {
    const cwd = project('from-source');
    const run = await runAsync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball], {
      cwd, env: { ...process.env, ...compilerCache(cwd), VOLBENCH_BUILD_FROM_SOURCE: '1' } as Record<string, string>, timeoutMs: 900_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('volbench: a build from source was asked for: building the native addon from source');
    const built = join(cwd, 'node_modules', 'volbench', 'build', 'Release', 'volbench.node');
    expect(existsSync(built)).toBe(true);
    const loaded = await runAsync(process.execPath, ['--input-type=module', '-e',
      "import('volbench').then(async (m) => { m.availableEngines(); const maps = (await import('node:fs')).readFileSync('/proc/self/maps', 'utf8'); console.log(maps.split('\\n').find((l) => l.endsWith('volbench.node')).split(' ').pop()); })"],
    { cwd });
    expect(loaded.stdout.trim(), loaded.stderr).toBe(built);
  }, 900_000);

  it('asked to build with no compiler, the install script fails saying what it needs', async () => {
    const bin = pathDir(join(tmp, 'bin-nocc'), { sh: which('sh') }, { binary: process.execPath });
    const unpacked = join(tmp, 'unpacked');
    mkdirSync(unpacked);
    expect((await runAsync('tar', ['xzf', tarball, '-C', unpacked])).status).toBe(0);
    const pkg = join(unpacked, 'package');
    const run = await runAsync(join(bin, 'node'), [join(pkg, 'install', 'install.mjs')], {
      cwd: pkg, timeoutMs: 120_000,
      env: childEnv(bin, { VOLBENCH_BUILD_FROM_SOURCE: '1', npm_config_node_gyp: join(repoRoot, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js') }),
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('volbench: a build from source was asked for: building the native addon from source');
    expect(run.stderr).toMatch(/volbench: the build from source failed .*\n.*needs a C\+\+17 compiler \(g\+\+ 10\+\), make and python3/);
    expect(existsSync(join(pkg, 'build', 'Release', 'volbench.node'))).toBe(false);
  }, 180_000);
});
