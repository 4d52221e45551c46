#!/usr/bin/env node
// npm test: every project (docs/testing.md) in three vitest runs, since vitest 3 sizes its one
// forks pool for the whole run. First unit and service, the service files two at a time
// (VOLBENCH_TEST_FORKS=2); then device and package side by side, each one file at a time. The
// package files spend their minutes waiting on throttled member volumes, moto and installs, and
// nothing they make or count is shared with a device file (docs/testing.md, "Side by side"); two
// at a time, they and the device files took the CPU from each other (15 min 13 s against 13 min
// 46 s, three timed tests over their bounds). The
// later runs go on when the first fails, so one run reports every failure; the exit code is the
// first non-zero, in the order the projects are listed.
//
//   node scripts/test-projects.mjs [vitest run arguments, given to every run]
//
// An --outputFile (a reporter's file) is one per run: report.json becomes report.unit-service.json,
// report.device.json and report.package.json, so no run writes over another's.
//
// VOLBENCH_TEST_STAGES=FILE: a line `<projects> <status>` is appended to FILE as each stage ends,
// so a caller can start work of its own beside the later stages (.ci/run does).
//
// What failed in any run is listed, one line each, once every run has ended (the reporter
// tests/helpers/failure-list.ts writes it to VOLBENCH_TEST_FAILURES, a file of the caller's or one
// made here), so the end of the output names every failure whatever stage it was in.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
/** Two files at a time: the CI machine has two cores, and these files mostly wait on processes and sockets. */
const TWO = '2';

const args = process.argv.slice(2);
// With a filter of the caller's, one of the runs may well have no file of it.
const filtered = args.length ? ['--passWithNoTests'] : [];

/** Stages run one after the other; the runs of a stage at the same time. */
const STAGES = [
  [{ projects: ['unit', 'service'], env: { VOLBENCH_TEST_FORKS: TWO } }],
  [{ projects: ['device'], env: { VOLBENCH_TEST_FORKS: '' } }, { projects: ['package'], env: { VOLBENCH_TEST_FORKS: '' } }],
];

/** The caller's arguments for one run, its output files named after its projects. */
function argsFor(projects) {
  const tag = projects.join('-');
  const rename = (file) => (extname(file) ? `${file.slice(0, -extname(file).length)}.${tag}${extname(file)}` : `${file}.${tag}`);
  return args.map((arg, i) => {
    if (/^--outputFile(\.\w+)?=/.test(arg)) {
      const at = arg.indexOf('=');
      return `${arg.slice(0, at + 1)}${rename(arg.slice(at + 1))}`;
    }
    return /^--outputFile(\.\w+)?$/.test(args[i - 1] ?? '') ? rename(arg) : arg;
  });
}

/**
 * One vitest run: its status (0 when it passed). Alone in its stage it has the terminal; beside
 * another, each of its lines is written whole, after its project's name.
 */
function run({ projects, env }, alone) {
  const tag = projects.join(' and ');
  const projectArgs = projects.flatMap((p) => ['--project', p]);
  const started = Date.now();
  const child = spawn(process.execPath, [VITEST, 'run', ...projectArgs, ...filtered, ...argsFor(projects)], {
    cwd: ROOT,
    stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  if (!alone) {
    const prefix = `${projects.join('+')} │ `;
    for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
      createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${prefix}${line}\n`));
    }
  }
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`test-projects: ${tag}: ${err.message}`);
      resolve(1);
    });
    child.on('close', (status, signal) => {
      const code = status ?? 1;
      console.log(`test-projects: ${tag} ${code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${Math.round((Date.now() - started) / 1000)} s`);
      resolve(code);
    });
  });
}

const ownList = !process.env.VOLBENCH_TEST_FAILURES;
const listDir = ownList ? mkdtempSync(join(tmpdir(), 'volbench-failures-')) : undefined;
if (ownList) process.env.VOLBENCH_TEST_FAILURES = join(listDir, 'failures');

let code = 0;
for (const stage of STAGES) {
  const statuses = await Promise.all(stage.map((r) => run(r, stage.length === 1)));
  for (const s of statuses) if (code === 0) code = s;
  if (process.env.VOLBENCH_TEST_STAGES) {
    appendFileSync(process.env.VOLBENCH_TEST_STAGES, `${stage.map((r) => r.projects.join('-')).join(',')} ${statuses.every((s) => s === 0) ? 'passed' : 'failed'}\n`);
  }
}
if (ownList) {
  let list = '';
  try {
    list = readFileSync(process.env.VOLBENCH_TEST_FAILURES, 'utf8');
  } catch {
    // No run listed a failure.
  }
  rmSync(listDir, { recursive: true, force: true });
  if (list) process.stdout.write(`test-projects: what failed:\n${list.trimEnd().replace(/^/gm, '  ')}\n`);
}
process.exit(code);
