/**
 * The suites volbench ships, as the manifest (suites/index.json, src/suites/manifest.ts) lists
 * them. The workload of each is a plain fio job file in the package's `suites/` directory (fio
 * runs it too); the manifest holds only what a job file cannot say.
 */
import { manifestEntries, type SuiteEntry } from './manifest.js';

/** What a suite can run on: `any` (a directory, a file or a block device) or a whole `block-device`. */
export type SuiteTarget = SuiteEntry['target'];

/** A suite as the manifest lists it. */
export type SuiteDefinition = SuiteEntry;

/** The shipped suites, in the manifest's order. */
export function suiteDefinitions(): readonly SuiteDefinition[] {
  return manifestEntries();
}
