/**
 * Which build of the addon the library loads: the file VOLBENCH_ADDON names (the sanitizer build
 * that `npm run test:asan` runs these tests against; this file is how that run knows the tests
 * really drove that build), else node-gyp's build/Release when there is one, else the prebuilt
 * binary the package carries for this architecture.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { nativeAddon } from '../../src/engine/addon.js';
import { requires } from '../helpers/requires.js';

requires();

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
