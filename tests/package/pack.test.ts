/**
 * What `npm pack` puts in the package: the compiled library and CLI, the prebuilt binaries with
 * their manifest, the addon's sources and install script for the source build fallback, and the
 * data the service serves; no tests, bench data, build trees, TypeScript sources or other scripts;
 * and a size that says so (a stray build tree or data set would multiply it).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { repoRoot } from '../helpers/packaging.js';
import { requires } from '../helpers/requires.js';

const needs = requires('packaging');

const MiB = 1024 * 1024;
const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' })) as {
  size: number; unpackedSize: number; files: { path: string; size: number }[];
}[];
const paths = packed.files.map((f) => f.path);

describe('npm pack', () => {
  it('holds the library, the CLI, both prebuilt binaries and what a source build needs', () => {
    expect(paths).toEqual(expect.arrayContaining([
      'package.json', 'README.md', 'CHANGELOG.md', 'openapi.yaml',
      'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/server/index.js', 'dist/server/lambda.js', 'dist/fleet/index.js',
      'prebuilds/manifest.json', 'prebuilds/linux-x64/volbench.node', 'prebuilds/linux-arm64/volbench.node',
      'install/install.mjs', 'install/addon-sources.mjs', 'binding.gyp', 'native/addon.cc',
    ]));
    expect(paths.some((p) => p.startsWith('web/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('suites/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('catalog/'))).toBe(true);
  });

  it('holds no tests, bench data, build trees, sources or other scripts', () => {
    const stray = paths.filter((p) =>
      /^(tests|bench|build|build-asan|bundles|src|node_modules|\.ci|\.github)\//.test(p) ||
      /\.test\.[cm]?[jt]s$|\.tgz$|\.zip$|\.log$/.test(p) ||
      p.startsWith('scripts/') ||
      (p.startsWith('install/') && !['install/install.mjs', 'install/addon-sources.mjs'].includes(p)) ||
      (p.endsWith('.node') && !p.startsWith('prebuilds/')));
    expect(stray).toEqual([]);
  });

  it('stays small: under 2 MiB packed and 8 MiB unpacked', () => {
    expect(packed.size).toBeLessThan(2 * MiB);
    expect(packed.unpackedSize).toBeLessThan(8 * MiB);
  });
});
