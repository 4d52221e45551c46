/**
 * The built CLI (dist/cli/main.js, made by `npm run build:ts`) run in its own process, as a
 * user runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export interface CliOutcome {
  code: number | null;
  /** The signal that ended the process, when one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI; `onSpawn` may act on the child (send it a signal) while it runs; `env` replaces
 * the environment it inherits.
 */
export function volbench(args: string[], onSpawn?: (child: ChildProcess) => void, env?: NodeJS.ProcessEnv): Promise<CliOutcome> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    onSpawn?.(child);
  });
}

export const SCRIPT = '/usr/bin/script';

/**
 * The CLI with a terminal for its stdout and stderr (a pty made by script(1)), `cols` wide;
 * `onOutput` sees all the terminal got so far, as it comes.
 */
export function volbenchOnTerminal(
  args: string[], opts: { cols?: number; env?: NodeJS.ProcessEnv; onOutput?: (text: string) => void } = {},
): Promise<{ text: string; code: number | null }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" first`);
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qfec', `stty cols ${opts.cols ?? 120}; ${quoted}`, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'], ...(opts.env ? { env: opts.env } : {}) });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      text += t;
      opts.onOutput?.(text);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ text, code }));
  });
}
