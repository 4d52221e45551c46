/**
 * Finding and reading the shipped suites: `suites/<name>.fio` at the package root, parsed with
 * the same job file parser `volbench run` uses.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

import { VolbenchError } from '../errors.js';
import { parseJobFile } from '../jobspec/index.js';
import type { JobSpec } from '../jobspec/types.js';
import { suiteDefinitions, type SuiteDefinition } from './catalog.js';

/** A suite with the path of its job file. */
export interface SuiteInfo extends SuiteDefinition {
  path: string;
}

/** A suite with its job file read and parsed (no target or overrides applied). */
export interface Suite extends SuiteInfo {
  /** The job file as shipped. */
  text: string;
  spec: JobSpec;
}

/**
 * The package's `suites/` directory. This module sits two levels below the package root both
 * as source (src/suites/) and as built code (dist/suites/).
 */
export function suitesDirectory(): string {
  return fileURLToPath(new URL('../../suites/', import.meta.url));
}

/** The shipped suites, in the order `volbench suite --list` prints them. */
export function listSuites(): SuiteInfo[] {
  const dir = suitesDirectory();
  return suiteDefinitions().map((s) => ({ ...s, path: join(dir, s.file) }));
}

/** A shipped suite by name, its job file read and parsed. */
export function loadSuite(name: string): Suite {
  const info = listSuites().find((s) => s.name === name);
  if (!info) {
    throw new VolbenchError('EINVALID_ARGS', `there is no suite named '${name}'`, {
      field: 'suite',
      accepted: suiteDefinitions().map((s) => s.name).join(', '),
    });
  }
  let text: string;
  try {
    text = readFileSync(info.path, 'utf8');
  } catch (cause) {
    throw new VolbenchError('EJOBFILE', `cannot read the job file of suite ${name} (${info.path}): ${(cause as Error).message}`, {
      path: info.path,
      cause,
    });
  }
  // No environment: a shipped suite means the same on every machine.
  return { ...info, text, spec: parseJobFile(text, {}) };
}
