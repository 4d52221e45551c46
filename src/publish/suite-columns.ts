/**
 * Which columns a test gets. The shipped suites name their tests the CrystalDiskMark way
 * (`RND4K-Q32T1-read`: random 4 KiB, queue depth 32, 1 thread, reads), which says what a
 * reader wants from each: IOPS for small blocks, MiB/s for large ones, and for queue depth 1
 * the p50/p99 completion latency too. Any other job gets IOPS, MiB/s, p50 and p99 of each
 * direction it did.
 */
import { ownTable } from '../own-key.js';

import { suiteManifest } from '../suites/manifest.js';

export type Metric = 'iops' | 'mibps' | 'p50_us' | 'p99_us';
export type Dir = 'read' | 'write';

export interface ColumnSpec {
  /** The job name the column reads. */
  test: string;
  dir: Dir;
  metric: Metric;
}

/**
 * The tests of the suites a report knows (every shipped suite, from the manifest), in the order
 * they run. Without a prototype: a document's suite name indexes it (`constructor` is no suite).
 */
export function namedSuites(): Readonly<Record<string, readonly string[]>> {
  return Object.assign(ownTable<readonly string[]>(), Object.fromEntries(suiteManifest().map((s) => [s.name, s.tests])));
}

const TEST_NAME = /^(RND|SEQ)(\d{1,5})([KM])-Q(\d{1,4})T(\d{1,4})-(read|write)$/;

/** Columns of a test named the suites' way, or null for any other name. */
export function namedTestColumns(test: string): ColumnSpec[] | null {
  const m = TEST_NAME.exec(test);
  if (!m) return null;
  const blockKiB = Number(m[2]) * (m[3] === 'M' ? 1024 : 1);
  const dir = m[6] as Dir;
  const cols: ColumnSpec[] = [{ test, dir, metric: blockKiB >= 64 ? 'mibps' : 'iops' }];
  if (m[4] === '1' && m[5] === '1') cols.push({ test, dir, metric: 'p50_us' }, { test, dir, metric: 'p99_us' });
  return cols;
}

/** Columns of any other job: every metric of each direction it did. */
export function genericTestColumns(test: string, dirs: readonly Dir[]): ColumnSpec[] {
  return dirs.flatMap((dir) => (['iops', 'mibps', 'p50_us', 'p99_us'] as const).map((metric) => ({ test, dir, metric })));
}

/**
 * The suite a document's job names belong to: the one `volbench.suite` names, else the named
 * suite whose tests are exactly these jobs, else null.
 */
export function suiteOf(declared: string | undefined, jobNames: readonly string[]): string | null {
  const named = namedSuites();
  if (declared && Object.hasOwn(named, declared)) return declared;
  const names = [...new Set(jobNames)].sort().join('\n');
  for (const [suite, tests] of Object.entries(named)) {
    if ([...tests].sort().join('\n') === names) return suite;
  }
  return declared ?? null;
}

export const METRIC_UNITS: Readonly<Record<Metric, string>> = { iops: 'IOPS', mibps: 'MiB/s', p50_us: 'p50 µs', p99_us: 'p99 µs' };
