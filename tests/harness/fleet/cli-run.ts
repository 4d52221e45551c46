/**
 * The built CLI (dist/), run as a user runs it, for the rehearsal: its stderr lines go to the
 * rehearsal's log as they come, and a command that creates a fleet gets a state directory of its
 * own (emptied first) and tells `onCreated` the fleet's id as soon as it exists. The child is
 * given back at once (`child`), so the rehearsal can kill it (a controller killed mid-study).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { watchCreated } from './fleet-created.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export interface CliRun { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; fleetId?: string }
/** A command that creates a fleet: its own state directory, and who to tell once the fleet exists. */
export interface Creates { stateDir: string; onCreated?: (fleetId: string, child: ChildProcess) => void }
export interface Running { child: ChildProcess; done: Promise<CliRun> }

/**
 * Runs `volbench ARGV`. `onStdoutLine` gets each line of its stdout as it comes (a command's
 * events with --format json: one JSON object a line).
 */
export function cli(argv: string[], env: NodeJS.ProcessEnv, log: (line: string) => void, creates?: Creates, onStdoutLine?: (line: string) => void): Running {
  if (creates) rmSync(creates.stateDir, { recursive: true, force: true });
  const child = spawn(process.execPath, [CLI, ...argv, ...(creates ? ['--state-dir', creates.stateDir] : [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const watch = creates && watchCreated(creates.stateDir, (fleetId) => creates.onCreated?.(fleetId, child));
  const done = new Promise<CliRun>((resolve) => {
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (!onStdoutLine) return;
      const lines = (pending + d).split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line) onStdoutLine(line);
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) if (line) log(`  | ${line}`);
    });
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, ...(watch ? { fleetId: watch.stop() } : {}) }));
  });
  return { child, done };
}
