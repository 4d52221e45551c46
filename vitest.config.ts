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

/** One project: its files, and what every worker of it is told (tests/helpers/requires.ts checks it). */
const project = (name: Project, groupOrder: number) => ({
  name,
  include: files[name],
  provide: { volbenchProject: name },
  sequence: { groupOrder },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    poolOptions: {
      // unit: pure code, every core, modules shared between files.
      threads: { execArgv, isolate: false, maxThreads: Math.max(2, availableParallelism()), minThreads: 1 },
      // device and package: real I/O on shared devices, so one file at a time, each in a fresh process.
      forks: { execArgv, isolate: true, maxForks: 1, minForks: 1 },
    },
    projects: [
      {
        extends: true,
        test: { ...project('unit', 0), pool: 'threads', isolate: false, setupFiles: ['tests/helpers/unit-guard.ts'] },
      },
      {
        extends: true,
        test: { ...project('device', 1), pool: 'forks', globalSetup: ['tests/helpers/fixture-service.ts'] },
      },
      {
        extends: true,
        test: { ...project('package', 2), pool: 'forks', globalSetup: ['tests/helpers/fixture-service.ts'] },
      },
    ],
  },
});
