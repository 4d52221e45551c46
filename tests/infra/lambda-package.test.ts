/**
 * The Lambda zip's native modules must load on Amazon Linux 2023 (glibc 2.34, GCC 11's
 * libstdc++): scripts/package-lambda.mjs refuses a build that needs newer symbol versions. The
 * check runs here on the addon this machine built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const addon = join(root, 'build', 'Release', 'volbench.node');
const objdump = spawnSync('objdump', ['--version']).status === 0;
const reason = !objdump ? 'objdump is not installed (binutils)' : !existsSync(addon) ? 'the addon is not built' : undefined;

describe.skipIf(reason !== undefined)(`Lambda package check${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  it('finds which symbol versions a module needs beyond Amazon Linux 2023\'s, and this addon needs none', async () => {
    const { tooNew } = await import('../../scripts/package-lambda.mjs');
    expect(tooNew(addon)).toEqual([]);
    // libstdc++ itself carries versions past GCC 11's: the check must see them.
    const libstdcxx = spawnSync('g++', ['-print-file-name=libstdc++.so.6'], { encoding: 'utf8' }).stdout.trim();
    if (existsSync(libstdcxx)) expect(tooNew(libstdcxx).some((v: string) => v.startsWith('GLIBCXX_3.4.3'))).toBe(true);
  });
});
