import { defineConfig } from 'vitest/config';

import { FROM_SOURCE_EXEC_ARGV } from './tests/harness/node-options.js';

// Test processes load the TypeScript sources as the harness does, so that the threads the service
// starts from its sources (the report renderer's) find their modules.
const execArgv = [...FROM_SOURCE_EXEC_ARGV];

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Real I/O on shared devices: files run one at a time so runs never disturb each other.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    poolOptions: { forks: { execArgv }, threads: { execArgv } },
  },
});
