#!/usr/bin/env node
// Runs the native tests against the sanitizer build of the addon (`npm run build:asan` first):
//
//   npm run test:asan [-- vitest arguments]        (default: tests/native and tests/faults)
//
// Node is not built with the sanitizers, so their runtimes are preloaded (gcc's libasan and
// libubsan, the ones the addon links) and VOLBENCH_ADDON points the loader at the ASan build.
// Any memory error or undefined behaviour aborts the process at once, which fails the run.
// Leaks are judged here, after the run: LeakSanitizer reports every block nobody points to at
// exit, and Node's own (V8's heap pages, napi references of other addons) are many, so the run
// fails only on blocks the addon allocated: the first frame past the allocator is one of its
// sources under native/, node-addon-api's inline wrappers, or the module itself.
//
// vitest runs with --pool=threads: the test files then run in worker threads of one process,
// which exits normally and so runs the leak check. A fork pool's children are ended by signal
// before LeakSanitizer could look. Every project then shares the threads pool, so it runs one
// file at a time, each in a thread of its own, as the device project would.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ADDON_FRAME } from './addon-frames.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const addon = join(root, 'build-asan', 'build', 'Release', 'volbench.node');
const vitest = join(createRequire(join(root, 'package.json')).resolve('vitest/package.json'), '..', 'vitest.mjs');

/** A sanitizer runtime of the compiler that built the addon. */
function runtime(name) {
  const cxx = process.env.CXX ?? 'g++';
  const path = execFileSync(cxx, [`-print-file-name=${name}`], { encoding: 'utf8' }).trim();
  if (!isAbsolute(path) || !existsSync(path)) throw new Error(`${cxx} has no ${name} (install gcc's libasan and libubsan)`);
  return path;
}

// The first line of a memory error (ASan) or of undefined behaviour (UBSan).
const FINDING = /ERROR: AddressSanitizer|runtime error:/;

// Frames that only pass an allocation on: the sanitizer's allocator, libc, libstdc++ and the
// standard library's templates inlined into whoever called them.
const PASS_ON = /src\/libsanitizer\/|\((?:\/usr)?\/lib\/[^)]*\.so[.\d]*\+0x|\/usr\/include\/c\+\+\//;

/**
 * Whether a leak block's memory was asked for by the addon: its first frame past the allocator
 * is the addon's. V8's own blocks allocated while the addon called into N-API (a function
 * created at load, a property set) are V8's: a process that ends in process.exit() leaves its
 * heap unfreed, and those stacks pass through the addon without it owning anything.
 */
function allocatedByAddon(block) {
  const frames = block.split('\n').filter((l) => /^\s+#\d+ 0x/.test(l));
  const owner = frames.find((f) => !PASS_ON.test(f));
  return owner !== undefined && ADDON_FRAME.test(owner);
}

/** The reports of one log: memory errors, undefined behaviour, and leak blocks split by owner. */
function readLog(text) {
  const out = { errors: [], addonLeaks: [], otherLeaks: { blocks: 0, bytes: 0 } };
  for (const report of text.split(/^={20,}$/m)) {
    if (FINDING.test(report)) out.errors.push(report.trim());
    for (const block of report.split(/\n(?=(?:Direct|Indirect) leak of )/).filter((b) => /^(?:Direct|Indirect) leak of /.test(b))) {
      if (allocatedByAddon(block)) out.addonLeaks.push(block.trim());
      else {
        out.otherLeaks.blocks += 1;
        out.otherLeaks.bytes += Number(/leak of (\d+) byte/.exec(block)?.[1] ?? 0);
      }
    }
  }
  return out;
}

if (!existsSync(addon)) {
  console.error(`test:asan: ${addon} is missing; run "npm run build:asan" first`);
  process.exit(1);
}
const logs = mkdtempSync(join(tmpdir(), 'volbench-asan-'));
const env = {
  ...process.env,
  VOLBENCH_ADDON: addon,
  LD_PRELOAD: [runtime('libasan.so'), runtime('libubsan.so'), process.env.LD_PRELOAD].filter(Boolean).join(':'),
  // abort_on_error: a finding kills the process (and the test run) where it happens.
  // detect_stack_use_after_return: a pointer to a returned function's local is caught too.
  ASAN_OPTIONS: [
    'abort_on_error=1', 'halt_on_error=1', 'detect_leaks=1', 'detect_stack_use_after_return=1',
    `log_path=${join(logs, 'asan')}`,
  ].join(':'),
  // Leaks never fail a process on their own: this script reads them and judges the addon's.
  LSAN_OPTIONS: 'exitcode=0',
  UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1:abort_on_error=1',
};
const vitestArgs = process.argv.slice(2).length ? process.argv.slice(2) : ['tests/native', 'tests/faults'];
const started = Date.now();
// UBSan's runtime writes to stderr whatever log_path says, so the output is read as it passes.
let stderr = '';
const pool = ['--pool=threads', '--poolOptions.threads.isolate', '--poolOptions.threads.maxThreads=1', '--poolOptions.threads.minThreads=1'];
const child = spawn(process.execPath, [vitest, 'run', ...pool, ...vitestArgs], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'pipe'],
});
child.stderr.on('data', (chunk) => {
  process.stderr.write(chunk);
  stderr += chunk.toString();
});
const run = await new Promise((done) => child.on('close', (status, signal) => done({ status, signal })));
const seconds = ((Date.now() - started) / 1000).toFixed(1);

const files = readdirSync(logs);
// Reports on stderr were printed as they came: here only their first lines are counted.
const errors = stderr.split('\n').filter((line) => FINDING.test(line)).map((line) => `on stderr: ${line}`);
const addonLeaks = [];
const other = { processes: 0, blocks: 0, bytes: 0 };
for (const f of files) {
  const found = readLog(readFileSync(join(logs, f), 'utf8'));
  errors.push(...found.errors.map((e) => `${f}:\n${e}`));
  addonLeaks.push(...found.addonLeaks.map((l) => `${f}:\n${l}`));
  if (found.otherLeaks.blocks) other.processes += 1;
  other.blocks += found.otherLeaks.blocks;
  other.bytes += found.otherLeaks.bytes;
}
for (const e of errors) console.error(`\n${e}`);
for (const l of addonLeaks) console.error(`\nleak from the addon in ${l}`);

const failed = run.status !== 0 || errors.length > 0 || addonLeaks.length > 0;
console.log(
  `\ntest:asan: vitest ${run.status === 0 ? 'passed' : `failed (${run.signal ?? `exit ${run.status}`})`} in ${seconds} s; ` +
    `ASan/UBSan errors: ${errors.length}; leaks from the addon: ${addonLeaks.length}; ` +
    `leaks elsewhere (Node, V8, tools the tests run): ${other.blocks} blocks, ${other.bytes} bytes in ${other.processes} processes`,
);
if (failed) console.log(`test:asan: sanitizer logs kept in ${logs}`);
else rmSync(logs, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
