#!/usr/bin/env node
// Runs scripts/valgrind/jobs.mjs (every engine through the library, on /dev/shm) in a node
// process under valgrind's memcheck, with the addon of the normal build (`npm run test:valgrind`
// builds dist/ first):
//
//   node scripts/valgrind-check.mjs
//
// Fails on any error memcheck does not suppress (an invalid read or write, a jump on an
// uninitialised value, a bad free) and on blocks definitely or possibly lost at exit.
// scripts/valgrind/node.supp holds Node's own findings and nothing of the addon; each error is
// printed marked as the addon's or not, with the suppression that would cover it, so a new
// finding of Node's own can be told from one of ours at a glance.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ADDON_FRAME } from './addon-frames.mjs';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('test:valgrind: valgrind is not installed (apt-get install valgrind)');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'volbench-valgrind-'));
const log = join(dir, 'memcheck.log');
const args = [
  '--tool=memcheck',
  '--leak-check=full',
  '--show-leak-kinds=definite,possible',
  '--errors-for-leak-kinds=definite,possible',
  '--error-exitcode=1',
  `--suppressions=${join(root, 'scripts', 'valgrind', 'node.supp')}`,
  '--gen-suppressions=all',
  '--num-callers=40',
  // Full source paths, so a frame of native/ reads as one.
  '--fullpath-after=',
  `--log-file=${log}`,
  process.execPath,
  join(root, 'scripts', 'valgrind', 'jobs.mjs'),
];
// The normal build: the sanitizer build's runtime and valgrind's cannot share a process.
const env = { ...process.env };
delete env.VOLBENCH_ADDON;
delete env.LD_PRELOAD;

const started = Date.now();
const child = spawn('valgrind', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
const cases = [];
let out = '';
child.stdout.on('data', (chunk) => {
  out += chunk.toString();
  let nl;
  while ((nl = out.indexOf('\n')) >= 0) {
    const line = out.slice(0, nl);
    out = out.slice(nl + 1);
    try {
      const c = JSON.parse(line);
      cases.push(c);
      const how = c.skipped ? `skipped: ${c.skipped}` : `${c.ok ? 'ok' : 'FAILED'} in ${c.ms} ms${c.note ? `: ${c.note}` : ''}`;
      console.log(`  ${c.case}: ${how}`);
    } catch {
      console.log(line);
    }
  }
});
const status = await new Promise((done) => child.on('close', (code, signal) => done(code ?? signal)));
const seconds = ((Date.now() - started) / 1000).toFixed(1);

// memcheck's log without its "==pid== " prefixes. An error is a line at the margin followed by
// its stack ("   at 0x..."), with the lines indented under it (more stacks: where a block was
// freed or allocated), then the suppression memcheck wrote for it in braces. Leaks count among
// them: only the kinds that count as errors are shown.
const lines = readFileSync(log, 'utf8').replace(/^(?:==|--)\d+(?:==|--) ?/gm, '').split('\n');
const errors = [];
for (let i = 0; i < lines.length; i++) {
  if (!/^\S/.test(lines[i]) || lines[i] === '{' || !/^\s+at 0x/.test(lines[i + 1] ?? '')) continue;
  const error = [lines[i]];
  while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1])) error.push(lines[++i]);
  if (lines[i + 1] === '{') {
    while (i + 1 < lines.length && lines[i] !== '}') error.push(lines[++i]);
  }
  errors.push(error.join('\n'));
}
const fromAddon = errors.filter((e) => ADDON_FRAME.test(e));
for (const e of errors) console.error(`\n${fromAddon.includes(e) ? 'memcheck, in the addon' : "memcheck, not in the addon (Node's own? then add its suppression to scripts/valgrind/node.supp)"}:\n${e}`);

const text = lines.join('\n');
const summary = text.split('\n').filter((l) => /ERROR SUMMARY|definitely lost:|indirectly lost:|possibly lost:|suppressed:/.test(l));
console.log(`\nmemcheck (${seconds} s):`);
for (const l of summary) console.log(`  ${l.trim()}`);
for (const m of text.matchAll(/unhandled amd64-linux syscall: (\d+)/g)) {
  const known = { 437: 'openat2: the addon fell back to opening each path component with O_NOFOLLOW' };
  console.log(`  valgrind does not know syscall ${m[1]}${known[m[1]] ? ` (${known[m[1]]})` : ''}`);
}

const failedCases = cases.filter((c) => !c.ok);
const failed = status !== 0 || errors.length > 0 || failedCases.length > 0 || cases.length === 0;
console.log(
  `test:valgrind: ${cases.filter((c) => c.ok && !c.skipped).length} cases ran clean, ${cases.filter((c) => c.skipped).length} skipped, ` +
    `${failedCases.length} failed; memcheck errors: ${errors.length} (${fromAddon.length} in the addon); exit status ${status}`,
);
if (failed) console.log(`test:valgrind: memcheck's log kept in ${log}`);
else rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
