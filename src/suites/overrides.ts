/**
 * What a user may change in a suite: its target (directory or filename, and the block device
 * write opt-in), and its runtime and size. They apply the way a fio option on the command line
 * would if it won over the job file (fio's own rule is the other way round): set in [global] and
 * replaced in every job that sets its own.
 */
import { statSync } from 'node:fs';

import { VolbenchError } from '../errors.js';
import { findOption, parseJobFile } from '../jobspec/index.js';
import type { JobSpec, RawOptionValue } from '../jobspec/types.js';
import type { Suite } from './load.js';

export interface SuiteOverrides {
  /** Where the suite's files go (fio's `directory`). */
  directory?: string;
  /** A file or block device for every test (fio's `filename`); never removed afterwards. */
  filename?: string;
  /** Allow writing a block device given as filename. */
  allow_block_write?: boolean;
  /** fio's runtime (`60`, `5s`, `1m`) for every test. */
  runtime?: string | number;
  /** fio's size (`4m`, `1g`) for every test. */
  size?: string | number;
}

function sameOption(a: string, b: string): boolean {
  return (findOption(a)?.name ?? a) === (findOption(b)?.name ?? b);
}

/** Sets `name` in [global] and in each job that sets it itself. Mutates `spec`. */
export function setOption(spec: JobSpec, name: string, value: RawOptionValue): void {
  // Changed in place: job records carry a hidden mark (fio does not echo a section's name).
  for (const job of spec.jobs) {
    for (const key of Object.keys(job)) if (sameOption(key, name)) job[key] = value;
  }
  spec.global ??= {};
  const key = Object.keys(spec.global).find((k) => sameOption(k, name)) ?? name;
  spec.global[key] = value;
}

function targetError(suite: Suite, message: string, field: string): VolbenchError {
  const accepted = suite.target === 'block-device' ? '--filename=/dev/<device>' : '--directory DIR or --filename PATH';
  return new VolbenchError('ETARGET', `suite ${suite.name}: ${message}`, { field, accepted });
}

function isBlockDevice(path: string): boolean {
  try {
    return statSync(path).isBlockDevice();
  } catch {
    return false;
  }
}

/** Refuses a target the suite cannot use, before anything runs. */
export function checkSuiteTarget(suite: Suite, o: SuiteOverrides): void {
  if (o.directory === undefined && o.filename === undefined) {
    throw targetError(suite, 'needs a target: give --directory or --filename', 'directory');
  }
  if (suite.target !== 'block-device') return;
  if (o.filename === undefined || o.directory !== undefined) {
    throw targetError(suite, 'reads a whole block device: give --filename=/dev/<device> (and no --directory)', 'filename');
  }
  if (!isBlockDevice(o.filename)) throw targetError(suite, `${o.filename} is not a block device`, 'filename');
}

/** The suite's spec with only its runtime and size replaced, no target: what planning reads (a fresh copy). */
export function sizedSpec(suite: Suite, o: Pick<SuiteOverrides, 'runtime' | 'size'>): JobSpec {
  const spec = parseJobFile(suite.text, {});
  if (o.runtime !== undefined) setOption(spec, 'runtime', String(o.runtime));
  if (o.size !== undefined) setOption(spec, 'size', String(o.size));
  return spec;
}

/** The suite's spec with the user's overrides applied (a fresh copy each call). */
export function applyOverrides(suite: Suite, o: SuiteOverrides): JobSpec {
  checkSuiteTarget(suite, o);
  // Parsed again rather than cloned: job records carry parseJobFile's hidden header-name mark.
  const spec = parseJobFile(suite.text, {});
  if (o.directory !== undefined) setOption(spec, 'directory', o.directory);
  if (o.filename !== undefined) {
    setOption(spec, 'filename', o.filename);
    // The user's file or device is not the suite's to delete.
    if (hasOption(spec, 'unlink')) setOption(spec, 'unlink', '0');
  }
  if (o.allow_block_write) setOption(spec, 'allow_block_write', true);
  if (o.runtime !== undefined) setOption(spec, 'runtime', String(o.runtime));
  if (o.size !== undefined) setOption(spec, 'size', String(o.size));
  return spec;
}

function hasOption(spec: JobSpec, name: string): boolean {
  return [spec.global ?? {}, ...spec.jobs].some((r) => Object.keys(r).some((k) => sameOption(k, name)));
}
