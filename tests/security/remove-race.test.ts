/**
 * After an interrupted run the service removes the files the run created. It checked a path's
 * resolution and then unlinked it by name, so a directory flipped to a symlink in between made
 * it delete a file of the same name outside the root. Files are now removed beneath the root's
 * held descriptor, never through a symlink, and only while the name is still the file the run
 * made. Expected: over hundreds of flips, the outside file is never removed, and the file
 * inside is removed whenever the name was the directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { removeCreatedFiles } from '../../src/server/runs/created-files.js';
import { closeRoots, resolveRoots } from '../../src/server/admission/roots.js';
import { fileStamp } from '../helpers/file-stamp.js';
import { requires } from '../helpers/requires.js';

const needs = requires('child', 'tmpfs');

const base = mkdtempSync(join('/dev/shm', `volbench-remove-race-${process.pid}-`));
let flipper: ChildProcess | undefined;
afterAll(() => {
  flipper?.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

describe('removing a run\'s files while a directory flips to a symlink out of the root', () => {
  it('never removes the file outside', async () => {
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    const real = join(root, 'real');
    const link = join(root, 'link');
    const name = join(root, 'd');
    mkdirSync(real);
    const realIno = lstatSync(real).ino;
    symlinkSync(outside, link);
    const script = `
      const { renameSync } = require('node:fs');
      process.stdout.write('flipping\\n');
      for (;;) {
        try { renameSync(${JSON.stringify(real)}, ${JSON.stringify(name)}); renameSync(${JSON.stringify(name)}, ${JSON.stringify(real)}); } catch {}
        try { renameSync(${JSON.stringify(link)}, ${JSON.stringify(name)}); renameSync(${JSON.stringify(name)}, ${JSON.stringify(link)}); } catch {}
      }`;
    flipper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => flipper!.stdout!.once('data', resolve));
    const roots = await resolveRoots([root]);
    try {
      let removedInside = 0;
      for (let i = 0; i < 400; i++) {
        writeFileSync(join(outside, 'x.dat'), 'precious');
        // The file the "run" created: its identity, as the engine records it.
        let made: { dev: bigint; ino: bigint; stamp: string } | null = null;
        for (const dir of [real, name]) {
          try {
            if (lstatSync(dir).ino !== realIno) continue;
            writeFileSync(join(dir, 'x.dat'), 'scratch');
            const st = statSync(join(dir, 'x.dat'), { bigint: true });
            made ??= { dev: st.dev, ino: st.ino, stamp: fileStamp(join(dir, 'x.dat')) };
          } catch {
            // The name moved meanwhile.
          }
        }
        if (made === null) continue;
        removedInside += (await removeCreatedFiles([{ path: join(name, 'x.dat'), ...made }], roots)).removed.length;
        expect(existsSync(join(outside, 'x.dat'))).toBe(true);
      }
      expect(removedInside).toBeGreaterThan(0);
    } finally {
      flipper!.kill('SIGKILL');
      closeRoots(roots);
    }
  }, 60_000);
});
