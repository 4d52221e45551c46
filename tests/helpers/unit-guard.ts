/**
 * The unit project's setup file: a unit test file needs nothing of the machine, so here it cannot
 * start a process or make files under /dev (tmpfs, device nodes). Either throws an error that says
 * which requirement to declare, and the file moves out of the unit project. The guard is installed
 * once per worker (files are not isolated) and also covers the library's own calls.
 */
import childProcess from 'node:child_process';
import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const GUARDED = Symbol.for('volbench.unit-guard');

function refuse(what: string, need: string): never {
  throw new Error(`a unit test ${what}: declare requires('${need}') (tests/helpers/requires.ts), which moves the file out of the unit project`);
}

function guardProcesses(): void {
  const cp = childProcess as unknown as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    cp[name] = (cmd: unknown) => refuse(`started a process (${name} ${String(cmd)})`, 'child');
  }
}

/** /dev/shm (tmpfs) and device nodes; /dev/null and its like are anyone's. */
const underDev = (path: unknown): boolean => typeof path === 'string' && /^\/dev\//.test(path) && !/^\/dev\/(null|zero|u?random|std(in|out|err)|fd\/)/.test(path);

function guardDev(): void {
  const sync = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const promises = fsPromises as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const [target, names] of [[sync, ['mkdtempSync', 'mkdirSync', 'openSync', 'writeFileSync', 'mkdtemp', 'mkdir', 'open', 'writeFile']], [promises, ['mkdtemp', 'mkdir', 'open', 'writeFile']]] as const) {
    for (const name of names) {
      const original = target[name];
      target[name] = function guarded(this: unknown, ...args: unknown[]) {
        if (underDev(args[0])) refuse(`used ${String(args[0])}`, String(args[0]).startsWith('/dev/shm') ? 'tmpfs' : 'root');
        return original.apply(this, args);
      };
    }
  }
}

const state = globalThis as Record<symbol, boolean>;
if (!state[GUARDED]) {
  state[GUARDED] = true;
  guardProcesses();
  guardDev();
  // ES module imports of node:child_process and node:fs see the guarded functions too.
  syncBuiltinESMExports();
}
