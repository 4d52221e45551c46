#!/usr/bin/env node
/**
 * The volbench command's entry. It imports nothing but the Node version check, so that on an
 * old Node the user reads which Node volbench needs (exit 2) instead of a stack trace from
 * whatever module first used something newer; the CLI itself loads only after the check.
 */
import { nodeVersionProblem } from '../node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem === null) {
  const { start } = await import('./cli.js');
  start();
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 2;
}
