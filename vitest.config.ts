import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

import { FROM_SOURCE_EXEC_ARGV } from './tests/harness/node-options.js';
import { classify, type Project } from './tests/helpers/projects.js';

// Every test file declares its needs on one line (tests/helpers/requires.ts); that line alone
// puts it in a project. A file without one, or with one the reader cannot read, stops the run here.
const { files, problems } = classify(import.meta.dirname);
if (problems.length) throw new Error(`test files whose needs cannot be read:\n  ${problems.join('\n  ')}`);

// Test processes load the TypeScript sources as the harness does, so that the threads the service
// starts from its sources (the report renderer's) find their modules. Vitest 3 sizes and starts
// its pools from the root's poolOptions alone, so both pools carry it, and so every project's
// processes and threads have it.
const execArgv = [...FROM_SOURCE_EXEC_ARGV];

// Vitest 3 has one forks pool for every project, sized from the root alone (VOLBENCH_TEST_FORKS,
// default 1): `npm test` (scripts/test-projects.mjs) runs unit and service in a vitest of their own
// with 2, then device and package, each in a vitest of its own with 1. A device file runs alone in
// any run: the project has a single fork of its own and a group of its own (sequence.groupOrder);
// a package file refuses to start in a run of more (tests/helpers/requires.ts).
const forks = testForks(process.env.VOLBENCH_TEST_FORKS);

function testForks(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  if (!/^[1-9]\d?$/.test(value)) throw new Error(`VOLBENCH_TEST_FORKS=${value}: a count of processes from 1 to 99 is accepted`);
  return Number(value);
}

/** One project: its files, and what every worker of it is told (tests/helpers/requires.ts checks it). */
const project = (name: Project, groupOrder: number) => ({
  name,
  include: files[name],
  provide: { volbenchProject: name, volbenchForks: forks },
  sequence: { groupOrder },
});

export default defineConfig({
  test: {
    // What failed, one line each, kept for the end of `npm test` and of CI (tests/helpers/failure-list.ts).
    reporters: ['default', './tests/helpers/failure-list.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    poolOptions: {
      // unit: pure code, every core, modules shared between files.
      threads: { execArgv, isolate: false, maxThreads: Math.max(2, availableParallelism()), minThreads: 1 },
      // service: two files at a time when asked (above); device and package: real I/O on shared
      // devices and results that time decides, so one file at a time. Each file in a fresh
      // process, but for device (below).
      forks: { execArgv, isolate: true, maxForks: forks, minForks: 1 },
    },
    projects: [
      {
        extends: true,
        test: { ...project('unit', 0), pool: 'threads', isolate: false, setupFiles: ['tests/helpers/unit-guard.ts'] },
      },
      {
        extends: true,
        test: { ...project('service', 1), pool: 'forks', globalSetup: ['tests/helpers/fixture-service.ts'] },
      },
      {
        extends: true,
        // One process runs the device files one after another, modules loaded once: a fresh
        // process and module graph per file cost 70 s of the device queue's 590 (collect, in CI
        // beside the package files); in one process it is 9 s. Not for service: run that way, its
        // OpenAPI test generated another document (its component names depend on what the
        // process loaded before).
        test: {
          ...project('device', 2), pool: 'forks', poolOptions: { forks: { singleFork: true, isolate: false } },
          globalSetup: ['tests/helpers/fixture-service.ts'],
        },
      },
      {
        extends: true,
        test: { ...project('package', 3), pool: 'forks', globalSetup: ['tests/helpers/fixture-service.ts'] },
      },
    ],
  },
});
