/**
 * Loads the native addon built by node-gyp. The same path works from `src/` (tests) and from
 * `dist/` (the published package): both sit two levels under the package root.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { VolbenchError } from '../errors.js';
import type { NativeAddon } from './native-types.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let loaded: NativeAddon | undefined;

export function nativeAddon(): NativeAddon {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const candidates = ['build/Release/volbench.node', 'build/Debug/volbench.node'].map((p) => join(packageRoot, p));
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new VolbenchError(
      'ENATIVE',
      `the native engine is not built (looked for ${candidates[0]}); run "npm run build:native" (needs a C++17 compiler and Linux)`,
    );
  }
  loaded = require(found) as NativeAddon;
  return loaded;
}
