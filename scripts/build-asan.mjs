#!/usr/bin/env node
// Builds the addon with AddressSanitizer and UndefinedBehaviorSanitizer (`npm run build:asan`)
// into build-asan/build/Release/volbench.node, leaving the normal build in build/ alone.
//
// node-gyp always builds into ./build of the directory it runs in, so it runs in build-asan/,
// whose binding.gyp only includes the project's (gyp rebases the included file's paths) and is
// configured with -Dsanitize=1, the switch binding.gyp keeps for this. `npm run test:asan` loads
// the result.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const dir = join(root, 'build-asan');
const nodeGyp = createRequire(join(root, 'package.json')).resolve('node-gyp/bin/node-gyp.js');

function nodeGypRun(args) {
  execFileSync(process.execPath, [nodeGyp, ...args], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
}

mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, 'binding.gyp'),
  '# Written by scripts/build-asan.mjs: the project\'s binding.gyp, built with -Dsanitize=1.\n' +
    "{ 'includes': ['../binding.gyp'] }\n",
);
nodeGypRun(['configure', '--', '-Dsanitize=1']);
nodeGypRun(['build', `--jobs=${process.env.JOBS ?? 'max'}`]);
console.error(`built ${join(dir, 'build', 'Release', 'volbench.node')}`);
