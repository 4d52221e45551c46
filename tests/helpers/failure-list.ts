// A reporter that lists what failed, one line each, in the file VOLBENCH_TEST_FAILURES names
// (appended, so the runs of `npm test` share one). scripts/test-projects.mjs prints the list when
// every run has ended, and .ci/run once more as its last lines: a failure in the first stage is
// otherwise thousands of lines above the end of a CI log, where only the end is kept.
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';

import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** The first line of an error's message, capped: enough to name the failure, never a dump. */
function firstLine(error: { message?: string; name?: string } | undefined): string {
  const text = (error?.message ?? error?.name ?? 'failed').split('\n').find((l) => l.trim() !== '') ?? 'failed';
  return text.length > 240 ? `${text.slice(0, 239)}…` : text.trim();
}

export default class FailureList implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    const file = process.env.VOLBENCH_TEST_FAILURES;
    if (!file) return;
    const lines: string[] = [];
    for (const module of modules) {
      const where = relative(process.cwd(), module.moduleId);
      const project = module.project.name;
      let named = 0;
      for (const test of module.children.allTests('failed')) {
        named++;
        lines.push(`${project} ${where} > ${test.fullName}: ${firstLine(test.result().errors?.[0])}`);
      }
      // A file that failed with no failed test: it did not load, or a hook threw.
      if (named === 0 && module.state() === 'failed') {
        lines.push(`${project} ${where}: ${firstLine(module.errors()[0])}`);
      }
    }
    for (const error of unhandled) lines.push(`unhandled error: ${firstLine(error)}`);
    if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
  }
}
