#!/usr/bin/env node
// npm test: every project (docs/testing.md) in two vitest runs, since vitest 3 sizes its one forks
// pool for the whole run. First unit and service, the service files two at a time
// (VOLBENCH_SERVICE_FORKS=2); then device and package, one file at a time. The second runs even
// when the first fails, so one run reports every failure; the exit code is the first non-zero.
//
//   node scripts/test-projects.mjs [vitest run arguments, given to both runs]
//
// An --outputFile (a reporter's file) is one per run: report.json becomes report.unit-service.json
// and report.device-package.json, so the second run does not write over the first.
import { spawnSync } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
/** Two files at a time: the CI machine has two cores, and these files mostly wait on processes and sockets. */
const SERVICE_FORKS = '2';

const args = process.argv.slice(2);
// With a filter of the caller's, one of the runs may well have no file of it.
const filtered = args.length ? ['--passWithNoTests'] : [];

const RUNS = [
  { projects: ['unit', 'service'], env: { VOLBENCH_SERVICE_FORKS: SERVICE_FORKS } },
  { projects: ['device', 'package'], env: { VOLBENCH_SERVICE_FORKS: '' } },
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

let code = 0;
for (const run of RUNS) {
  const projectArgs = run.projects.flatMap((p) => ['--project', p]);
  const started = Date.now();
  const result = spawnSync(process.execPath, [VITEST, 'run', ...projectArgs, ...filtered, ...argsFor(run.projects)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...run.env },
  });
  const status = result.status ?? 1;
  console.log(`test-projects: ${run.projects.join(' and ')} ${status === 0 ? 'passed' : `failed (${result.signal ?? `exit ${status}`})`} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (code === 0) code = status;
}
process.exit(code);
