/**
 * What the packaging tests share: the pinned Nodes (scripts/node-dist.sh), the Debian 11 root
 * they run things in (scripts/debian-root.sh --preset run, which .ci/run makes before the tests),
 * qemu-aarch64 for arm64, and a PATH holding only the tools named. The packed tarball and the
 * bundles are the run's fixtures (tests/helpers/fixtures.ts).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { nodeVersions } from '../../scripts/node-versions.mjs';
import { QEMU } from './requires.js';

export { QEMU };

export const repoRoot = join(import.meta.dirname, '..', '..');
export const pkgVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** The Debian 11 root with arm64's libraries beside amd64's (made once, cached). */
export function runRoot(): string {
  return execFileSync(join(repoRoot, 'scripts', 'debian-root.sh'), ['--preset', 'run'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** The pinned Node for `arch` (NODE_BUNDLE unless `version` is given), unpacked and cached. */
export function nodeDist(arch: 'x64' | 'arm64', version = nodeVersions().NODE_BUNDLE): string {
  return execFileSync(join(repoRoot, 'scripts', 'node-dist.sh'), [version, arch], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** The real path of `name` on this PATH. */
export function which(name: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error(`${name} is not on PATH`);
  return realpathSync(found);
}

/**
 * A directory to be the whole PATH: links to the tools named (name -> real path), and `node` as
 * given (a binary, or for arm64 a script that runs it under qemu).
 */
export function pathDir(dir: string, tools: Record<string, string>, node: { binary: string; sysroot?: string }): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, target] of Object.entries(tools)) symlinkSync(target, join(dir, name));
  if (node.sysroot) {
    // Each call is logged beside the directory, so a test can tell what ran emulated.
    const script = `#!/bin/sh\necho "$*" >> ${dir}.calls\nexec ${QEMU} -L ${node.sysroot} ${node.binary} "$@"\n`;
    writeFileSync(join(dir, 'node'), script, { mode: 0o755 });
  } else symlinkSync(node.binary, join(dir, 'node'));
  return dir;
}

/** The environment a child gets: PATH as given, HOME, the CA bundle and npm's cache settings kept. */
export function childEnv(path: string, extra: Record<string, string> = {}): Record<string, string> {
  const keep = ['HOME', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'TMPDIR'];
  const env: Record<string, string> = { PATH: path };
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return { ...env, ...extra };
}

/** The fio JSON a `volbench run ... --output-format=json` printed, with its first job. */
export function firstJob(stdout: string): { job: { jobname: string; read: { io_bytes: number }; write: { io_bytes: number } }; engine: string } {
  const result = JSON.parse(stdout) as { jobs: { jobname: string; read: { io_bytes: number }; write: { io_bytes: number } }[]; volbench: { jobs: { engine: string }[] } };
  return { job: result.jobs[0], engine: result.volbench.jobs[0].engine };
}

export interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * A child process awaited, not waited for: a test that blocks its worker for minutes (an npm
 * install, a bundle) starves vitest's own messages, so long runs go through here.
 */
export function runAsync(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolvePromise({ status, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}
