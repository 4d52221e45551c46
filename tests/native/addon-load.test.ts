/**
 * Which build of the addon the library loads: the file VOLBENCH_ADDON names (the sanitizer build
 * that `npm run test:asan` runs these tests against; this file is how that run knows the tests
 * really drove that build), else node-gyp's build/Release when there is one, else the prebuilt
 * binary the package carries for this architecture.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { addonPath, nativeAddon } from '../../src/engine/addon.js';
import { requires } from '../helpers/requires.js';

// tmpfs: a place others can write (/dev/shm); root: a file that belongs to another user.
const needs = requires('tmpfs', 'root');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chosen = process.env.VOLBENCH_ADDON;

describe('loading the addon', () => {
  afterEach(() => {
    if (chosen === undefined) delete process.env.VOLBENCH_ADDON;
    else process.env.VOLBENCH_ADDON = chosen;
    vi.resetModules();
  });

  it('maps the build VOLBENCH_ADDON names, or build/Release, or the prebuilt binary', () => {
    expect(nativeAddon().engines()).toContain('null');
    const built = join(root, 'build', 'Release', 'volbench.node');
    const prebuilt = join(root, 'prebuilds', `linux-${process.arch}`, 'volbench.node');
    const expected = realpathSync(chosen ?? (existsSync(built) ? built : prebuilt));
    const mapped = readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .filter((line) => line.endsWith('volbench.node'))
      .map((line) => line.slice(line.indexOf('/')));
    expect(mapped).toContain(expected);
  });

  it('VOLBENCH_ADDON naming a missing file is ENATIVE naming it', async () => {
    process.env.VOLBENCH_ADDON = '/nonexistent/volbench.node';
    vi.resetModules();
    const fresh = await import('../../src/engine/addon.js');
    let err: unknown;
    try {
      fresh.nativeAddon();
    } catch (e) {
      err = e;
    }
    // The fresh module graph has a VolbenchError class of its own.
    expect(err).toMatchObject({ name: 'VolbenchError', code: 'ENATIVE' });
    expect((err as Error).message).toContain('VOLBENCH_ADDON names /nonexistent/volbench.node');
  });
});

/**
 * Regression (security review, fourth round): VOLBENCH_ADDON loaded any path, so whoever could
 * write the file or a directory above it (a world-writable /tmp, a group-writable build
 * directory) ran code as the user who started volbench. Expected: the file is loaded only when
 * it and every directory above it, links resolved, belong to this user or root and are writable
 * by no group and no one else (above the file's own directory, a sticky one will do); otherwise
 * ENATIVE says which one and why.
 */
describe('VOLBENCH_ADDON from a place others can write', () => {
  const artifacts = join(root, 'tests', 'artifacts');
  let dirs: string[] = [];
  afterEach(() => {
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
    dirs = [];
    if (chosen === undefined) delete process.env.VOLBENCH_ADDON;
    else process.env.VOLBENCH_ADDON = chosen;
  });
  const place = (base: string): string => {
    mkdirSync(base, { recursive: true });
    const dir = mkdtempSync(join(base, `addon-${process.pid}-`));
    dirs.push(dir);
    writeFileSync(join(dir, 'volbench.node'), '');
    return join(dir, 'volbench.node');
  };
  const refusal = (path: string): string => {
    process.env.VOLBENCH_ADDON = path;
    try {
      addonPath();
    } catch (err) {
      expect(err).toMatchObject({ code: 'ENATIVE', field: 'VOLBENCH_ADDON' });
      return (err as Error).message;
    }
    return '';
  };

  it('is honoured from a directory only its owner can write, and refused otherwise', () => {
    const safe = place(artifacts);
    process.env.VOLBENCH_ADDON = safe;
    expect(addonPath()).toBe(safe);
    chmodSync(dirname(safe), 0o770);
    expect(refusal(safe)).toMatch(/writable by its group or by everyone \(mode 770\)/);
    chmodSync(dirname(safe), 0o700);
    chmodSync(safe, 0o666);
    expect(refusal(safe)).toContain(`${realpathSync(safe)} is writable by its group or by everyone`);
    // Above a private directory, a directory everyone may write: refused unless it is sticky
    // (as /tmp and /dev/shm are: no one else may rename what is ours there). Through a link from a
    // safe place too.
    const open = mkdtempSync(join('/dev/shm', `addon-open-${process.pid}-`));
    dirs.push(open);
    chmodSync(open, 0o777);
    const shared = place(open);
    expect(refusal(shared)).toContain(`${open} is writable by its group or by everyone (mode 777)`);
    const link = join(dirname(safe), 'link.node');
    symlinkSync(shared, link);
    expect(refusal(link)).toContain(`${open} is writable`);
    chmodSync(open, 0o1777);
    process.env.VOLBENCH_ADDON = link;
    expect(addonPath()).toBe(realpathSync(shared));
    // The file's own directory may not be shared, sticky or not.
    chmodSync(dirname(shared), 0o1777);
    expect(refusal(shared)).toContain(`${realpathSync(dirname(shared))} is writable by its group or by everyone (mode 1777)`);
  });

  // Broke: the check resolved every link and vouched for where they led, but what was loaded was
  // the name as given: a link kept in another user's directory passed the check pointing at the
  // user's own build, and pointed at the other user's file by the time it was mapped. Expected:
  // the file loaded is the one checked, by its resolved name, whatever a link on the way says later.
  it.skipIf(needs.missing('root') !== undefined)('loads the file it checked, whatever a link on the way names afterwards', () => {
    const safe = place(artifacts);
    chmodSync(safe, 0o644);
    const theirs = place('/dev/shm');
    const dir = mkdtempSync(join('/dev/shm', `addon-link-${process.pid}-`));
    dirs.push(dir);
    const link = join(dir, 'volbench.node');
    symlinkSync(safe, link);
    chownSync(dir, 65534, 65534);
    chmodSync(dir, 0o755);
    process.env.VOLBENCH_ADDON = link;
    const chosen = addonPath();
    // Between the check and the load, the link's owner points it at their own file.
    rmSync(link);
    symlinkSync(theirs, link);
    expect(realpathSync(chosen)).toBe(realpathSync(safe));
  });

  it.skipIf(needs.missing('root') !== undefined)('is refused when the file belongs to another user', () => {
    const safe = place(artifacts);
    chmodSync(safe, 0o644);
    chownSync(safe, 65534, 65534);
    expect(refusal(safe)).toMatch(/belongs to uid 65534, neither this user \(uid 0\) nor root/);
  });
});
