/**
 * Loads the native addon: a build from source (node-gyp's build/Release or build/Debug) when there
 * is one, else the prebuilt binary the package carries for this platform (prebuilt.ts). The same
 * paths work from `src/` (tests) and from `dist/` (the published package): both sit two levels
 * under the package root. VOLBENCH_ADDON, a development switch, names another build to load
 * instead (the sanitizer build, `npm run build:asan`), only from a file this user or root owns
 * that no one else can change (owned-path.ts).
 *
 * The addon checks the plans it is handed and throws TypeError or RangeError when one breaks
 * the contract (a missing field, a value out of range): a fault of volbench, not of the user's
 * input, which the plan stage has checked. Those errors leave here as VolbenchError ENATIVE,
 * like every other error the library throws.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { VolbenchError } from '../errors.js';
import type { NativeAddon } from './native-types.js';
import { ownedRealPath } from './owned-path.js';
import { choosePrebuilt, hostPlatform } from './prebuilt.js';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let loaded: NativeAddon | undefined;

/**
 * The addon names the plan field it refused (`plan field 'fallocate' must be one of none, …`):
 * the error carries it as `field`, and what it takes as `accepted`.
 */
const PLAN_FIELD = /^plan field '([^']+)'(?:.*? must be (.+))?/;

function nativeError(call: string, err: unknown): unknown {
  if (!(err instanceof TypeError || err instanceof RangeError)) return err;
  const named = PLAN_FIELD.exec(err.message);
  return new VolbenchError('ENATIVE', `the native engine refused ${call}: ${err.message}`, {
    cause: err,
    ...(named ? { field: named[1] } : {}),
    ...(named?.[2] ? { accepted: named[2] } : {}),
  });
}

/** `fn` with the addon's contract errors, thrown or rejected, as VolbenchError. */
function wrapped<A extends unknown[], R>(call: string, fn: (...args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    let out: R;
    try {
      out = fn(...args);
    } catch (err) {
      throw nativeError(call, err);
    }
    if (out instanceof Promise) return out.catch((err: unknown) => Promise.reject(nativeError(call, err))) as R;
    return out;
  };
}

/** Which addon loads, and why that one: what `volbench doctor` tells. */
export interface AddonChoice {
  path: string;
  from: 'VOLBENCH_ADDON' | 'source' | 'prebuilt';
  why: string;
}

/**
 * The addon's file: VOLBENCH_ADDON when set, else a build from source (made on purpose, or where
 * no prebuilt binary fits), else the prebuilt binary for this platform.
 */
export function addonChoice(): AddonChoice {
  const chosen = process.env.VOLBENCH_ADDON;
  if (chosen) {
    const path = resolve(chosen);
    if (!existsSync(path)) {
      throw new VolbenchError('ENATIVE', `VOLBENCH_ADDON names ${path}, which does not exist; unset it or build that addon`);
    }
    const owned = ownedRealPath(path);
    if ('refused' in owned) {
      throw new VolbenchError('ENATIVE', `VOLBENCH_ADDON names ${path}, which is not loaded: ${owned.refused}; unset it, or keep the build where only you (or root) can write`, {
        field: 'VOLBENCH_ADDON',
        accepted: 'a file owned by this user or root, in directories owned by this user or root, none writable by group or others',
      });
    }
    // The name checked, links resolved: a link on the given way could be pointed elsewhere by now.
    return { path: owned.real, from: 'VOLBENCH_ADDON', why: 'VOLBENCH_ADDON names it' };
  }
  const built = ['build/Release/volbench.node', 'build/Debug/volbench.node'].map((p) => join(packageRoot, p)).find((p) => existsSync(p));
  if (built) return { path: built, from: 'source', why: 'a build from source is there, and comes before the prebuilt binary' };
  const host = hostPlatform();
  const prebuilt = choosePrebuilt(join(packageRoot, 'prebuilds'), host);
  if ('refused' in prebuilt) throw new VolbenchError('ENATIVE', `the native engine cannot load: ${prebuilt.refused}`);
  return { path: prebuilt.path, from: 'prebuilt', why: `no build from source; the one for ${host.platform}-${host.arch} fits glibc ${host.glibc}` };
}

export function addonPath(): string {
  return addonChoice().path;
}

/** The engine's own deadline for a call on a root when the caller names none (native/addon.cc). */
const NATIVE_ROOT_CALL_DEADLINE_MS = 5000;

/**
 * A call on a root's filesystem runs on a thread of the engine's own that does not hold the
 * event loop open (one stuck in the kernel must not keep the process from exiting): a timer
 * does, until the call settles or its deadline passes, so a script that awaits a removal or a
 * probe and nothing else is not ended before the answer comes.
 */
function heldOpen<A extends unknown[], R>(deadlineAt: number, fn: (...args: A) => Promise<R> | null): (...args: A) => Promise<R> | null {
  return (...args: A) => {
    const call = fn(...args);
    if (call === null) return call;
    const given = args[deadlineAt];
    const ms = typeof given === 'number' && given >= 1 ? given : NATIVE_ROOT_CALL_DEADLINE_MS;
    const keep = setTimeout(() => {}, ms);
    return call.finally(() => clearTimeout(keep));
  };
}

/** A function an older build of the addon lacks: it fails when called, not when the addon loads. */
function lacking<F>(name: string): F {
  return (() => {
    throw new VolbenchError('ENATIVE', `this build of the native engine has no ${name}: rebuild it (npm run build:native)`);
  }) as F;
}

function load(): NativeAddon {
  const require = createRequire(import.meta.url);
  const raw = require(addonPath()) as NativeAddon;
  return {
    runJobs: wrapped('a run plan', raw.runJobs.bind(raw)),
    cancel: wrapped('a cancel', raw.cancel.bind(raw)),
    probeTarget: wrapped('a target probe', heldOpen(3, raw.probeTarget.bind(raw))),
    removeFile: wrapped('a file removal', heldOpen(4, raw.removeFile.bind(raw))),
    readNvmeLogPage: wrapped('an NVMe log page read',
      heldOpen(2, raw.readNvmeLogPage?.bind(raw) ?? lacking<NativeAddon['readNvmeLogPage']>('readNvmeLogPage'))),
    engines: wrapped('the engine list', raw.engines.bind(raw)),
    stuck: wrapped('the stuck tally', raw.stuck.bind(raw)),
    setStuckLimit: wrapped('a stuck-thread limit', raw.setStuckLimit.bind(raw)),
  };
}

export function nativeAddon(): NativeAddon {
  loaded ??= load();
  return loaded;
}
