/**
 * `volbench serve` as a child process, for tests that kill the server. The child runs the built
 * CLI (dist/), rebuilt first when a source file is newer than its output.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = join(REPO, 'dist', 'cli', 'main.js');

function newestStale(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (newestStale(path)) return true;
    } else if (entry.name.endsWith('.ts')) {
      const out = join(REPO, 'dist', relative(join(REPO, 'src'), path).replace(/\.ts$/, '.js'));
      if (!existsSync(out) || statSync(out).mtimeMs < statSync(path).mtimeMs) return true;
    }
  }
  return false;
}

export function ensureBuilt(): void {
  if (newestStale(join(REPO, 'src'))) {
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(REPO, 'tsconfig.build.json')], { stdio: 'inherit' });
  }
}

export interface ServeChild {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** The service's own process, a child of serve's (serve-supervisor.ts): where its memory and threads are. */
  servicePid: number;
}

/** The one child of `pid`, from /proc. */
export function onlyChildOf(pid: number): number {
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  if (kids.length !== 1) throw new Error(`process ${pid} has ${kids.length} children, not one`);
  return Number(kids[0]);
}

/**
 * Starts `volbench serve` and resolves once it listens (bounded: rejects after 20 s). `nofile`:
 * the descriptor limit it runs with (util-linux's prlimit sets it and execs serve: same pid).
 */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}, nofile?: number): Promise<ServeChild> {
  const command = [process.execPath, CLI, 'serve', '--port', '0', ...args];
  const [file, ...argv] = nofile === undefined ? command : ['prlimit', `--nofile=${nofile}:${nofile}`, '--', ...command];
  const child = spawn(file, argv, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${stderr}`));
    }, 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving on (https?:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], stderr: () => stderr, servicePid: onlyChildOf(child.pid!) });
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

export function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
