/**
 * `volbench suite --list`: each suite with, per test, the fio command line that runs it alone,
 * so the mapping to fio is there to read and paste.
 */
import type { RawOptionValue } from '../jobspec/types.js';
import type { Suite } from './load.js';

function flag(name: string, value: RawOptionValue): string {
  return value === true ? `--${name}` : `--${name}=${String(value)}`;
}

function flags(options: Record<string, RawOptionValue> | undefined, skip: readonly string[] = []): string {
  return Object.entries(options ?? {})
    .filter(([name]) => !skip.includes(name))
    .map(([name, value]) => flag(name, value))
    .join(' ');
}

function targetHint(suite: Suite): string {
  return suite.target === 'block-device' ? '--filename=/dev/<device>' : '--directory=<dir>';
}

/** A suite's header, job file, and one fio command per test. */
export function describeSuite(suite: Suite): string {
  const global = flags(suite.spec.global, ['stonewall']);
  const lines = [
    `${suite.name}: ${suite.title}`,
    `  from:     ${suite.source}`,
    `  job file: ${suite.path}`,
    `  runs:     each test ${suite.loops === 1 ? 'once' : `${suite.loops} times, keeping the best run (and the median)`}` +
      `; target ${suite.target === 'block-device' ? 'a whole block device (--filename)' : '--directory or --filename'}`,
    '  tests, as fio commands:',
  ];
  for (const job of suite.spec.jobs) {
    const own = flags(job, ['name', 'stonewall']);
    lines.push(`    fio --name=${String(job.name)} ${[global, own].filter(Boolean).join(' ')} ${targetHint(suite)}`);
  }
  return `${lines.join('\n')}\n`;
}
