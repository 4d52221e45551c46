/**
 * What the CLI does with assertion outcomes: a line per assertion on stderr, JUnit XML when
 * asked, GitHub Actions annotations when asked (on stderr too: the Actions runner reads
 * workflow commands from both streams, and stdout stays the result alone).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

import { VolbenchError } from '../errors.js';
import { describeOutcome, toGithubAnnotations, toJUnit, type AssertionOutcome } from '../gates/index.js';
import type { FioJson } from '../fio-output/fio-result.js';
import type { GateArgs } from './own-flags.js';
import type { CommandIo } from './io.js';

export function reportGates(outcomes: readonly AssertionOutcome[], gates: GateArgs, io: CommandIo, result: FioJson, name: string): void {
  for (const o of outcomes) io.stderr.write(`volbench: ${describeOutcome(o)}\n`);
  if (outcomes.length) {
    const held = outcomes.filter((o) => o.passed).length;
    io.stderr.write(`volbench: ${held} of ${outcomes.length} assertions hold\n`);
  }
  if (gates.github) io.stderr.write(toGithubAnnotations(outcomes));
  if (gates.junit !== undefined) {
    try {
      writeFileSync(gates.junit, toJUnit(outcomes, { name, result }));
    } catch (cause) {
      throw new VolbenchError('EINVALID_ARGS', `cannot write the JUnit report ${gates.junit}: ${(cause as Error).message}`, {
        field: '--junit',
        path: gates.junit,
        cause,
      });
    }
  }
}

/**
 * 130 when interrupted; 1 when an assertion fails or a job ended with an error; else 0.
 * `runStatus` is exitStatus() of the result.
 */
export function gateExitStatus(runStatus: number, outcomes: readonly AssertionOutcome[]): number {
  if (runStatus === 130) return 130;
  return runStatus !== 0 || outcomes.some((o) => !o.passed) ? 1 : 0;
}

/**
 * The files written after the run (--output, --junit) must have a directory to go to: checked
 * before any I/O, so a typo does not lose the result of a long run.
 */
export function checkOutputPaths(gates: GateArgs, output: string | undefined): void {
  const files: Array<[string, string | undefined, string]> = [['--output', output, 'the output'], ['--junit', gates.junit, 'the JUnit report']];
  for (const [field, path, what] of files) {
    if (path === undefined) continue;
    const dir = dirname(resolve(path));
    if (!existsSync(dir)) {
      throw new VolbenchError('EINVALID_ARGS', `cannot write ${what} ${path}: directory ${dir} does not exist`, { field, path });
    }
  }
}
