#!/usr/bin/env node
// The package's install step. Where a prebuilt addon fits (Linux x64 or arm64 with glibc, made
// from the very sources under native/), there is nothing to do: the library loads it from
// prebuilds/. Otherwise, or when asked (VOLBENCH_BUILD_FROM_SOURCE=1, or npm's
// --build-from-source while npm still passes it on), it builds the addon from source with
// node-gyp, saying why first (npm shows it with --foreground-scripts, or when the build fails).
// On musl (Alpine) it refuses: the addon is written for glibc.
//
// It runs before `prepare` in a git checkout, so it uses nothing but Node and the scripts beside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { addonSourcesHash } from './addon-sources.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const say = (/** @type {string} */ text) => process.stderr.write(`volbench: ${text}\n`);
const truthy = (/** @type {string | undefined} */ v) => v !== undefined && v !== '' && v !== 'false' && v !== '0';

/**
 * Whether version `have` (2.31) is older than `need`.
 * @param {string} have
 * @param {string} need
 */
function older(have, need) {
  const a = have.split('.').map(Number);
  const b = need.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * Why the prebuilt binary cannot serve here, or undefined when it can.
 * @param {string} glibc
 * @returns {string | undefined}
 */
function whyBuild(glibc) {
  if (truthy(process.env.npm_config_build_from_source) || truthy(process.env.VOLBENCH_BUILD_FROM_SOURCE)) return 'a build from source was asked for';
  const key = `linux-${process.arch}`;
  let entry;
  try {
    entry = JSON.parse(readFileSync(join(root, 'prebuilds', 'manifest.json'), 'utf8')).binaries[key];
  } catch {
    return 'this package has no prebuilt binaries (prebuilds/manifest.json)';
  }
  if (!entry || !existsSync(join(root, 'prebuilds', entry.file))) return `there is no prebuilt binary for ${key}`;
  if (older(glibc, entry.glibc)) return `the prebuilt binary for ${key} needs glibc ${entry.glibc}, this system has ${glibc}`;
  if (entry.sources !== addonSourcesHash(root)) return 'the prebuilt binary was made from other sources than native/ holds';
  return undefined;
}

function buildFromSource() {
  // npm hands its own node-gyp to lifecycle scripts; outside npm, the one on PATH.
  const gyp = process.env.npm_config_node_gyp;
  const [cmd, argv] = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
  const run = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit' });
  if (run.error || run.status !== 0) {
    say(`the build from source failed (${run.error?.message ?? `node-gyp exited with ${run.status ?? run.signal}`}).`);
    say('It needs a C++17 compiler (g++ 10+), make and python3 3.8+: apt-get install -y g++ make python3, or dnf install -y gcc-c++ make python3.');
    process.exit(1);
  }
}

function main() {
  if (process.platform !== 'linux') {
    say(`volbench runs on Linux only, not on ${process.platform}.`);
    process.exit(1);
  }
  const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport());
  const glibc = report.header.glibcVersionRuntime;
  if (glibc === undefined) {
    say('this system\'s C library is not glibc (musl, as on Alpine?). volbench\'s native engine is built for glibc 2.31 or newer');
    say('(Debian 11+, Ubuntu 20.04+, Amazon Linux 2023, RHEL 9); musl is not supported.');
    process.exit(1);
  }
  const why = whyBuild(glibc);
  if (why === undefined) return;
  say(`${why}: building the native addon from source (needs a C++17 compiler, make and python3).`);
  buildFromSource();
}

main();
