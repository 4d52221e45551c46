/**
 * The library entry loads the library alone. `import { runJobs } from 'volbench'` used to load
 * Fastify, SQLite and prom-client too, because the entry exported the service; the service is
 * now `volbench/server`. Each check runs in a fresh Node process, which records every module
 * it resolves (ESM through a resolve hook, CommonJS through require's cache).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';

const needs = requires('child', 'dist');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Every module file loaded by importing `entry` (a path under dist/). The resolve hook runs on
 * the loading thread (`registerHooks`): hooks given to `register()` run on a thread of their
 * own whose last writes can be lost when the process exits, which hid modules from the list.
 */
function modulesLoadedBy(entry: string): string[] {
  const script = `
    import { registerHooks, createRequire } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
    await import(${JSON.stringify(join(root, entry))});
    seen.push(...Object.keys(createRequire(import.meta.url).cache));
    process.stderr.write(seen.map((f) => 'loaded ' + f).join('\\n') + '\\n');
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`importing ${entry} failed: ${r.stderr}`);
  return r.stderr.split('\n').filter((l) => l.startsWith('loaded ')).map((l) => l.slice('loaded '.length));
}

const SERVICE_PACKAGES = /node_modules\/(fastify|@fastify\/[^/]+|prom-client|fastify-type-provider-zod|@aws-sdk\/[^/]+)\//;
/** The store's SQLite is Node's own `node:sqlite`, reached only through this module. */
const STORE_SQLITE = '/dist/server/store/sqlite.js';

function servicePackages(files: string[]): string[] {
  return [...new Set(files.flatMap((f) => SERVICE_PACKAGES.exec(f)?.[1] ?? []))].sort();
}

describe('the package entries', () => {
  it("'volbench' loads no Fastify, SQLite, prom-client or AWS SDK, and none of src/server or src/fleet", () => {
    const loaded = modulesLoadedBy('dist/index.js');
    expect(loaded.some((f) => f.includes('/dist/index.js'))).toBe(true);
    expect(servicePackages(loaded)).toEqual([]);
    expect(loaded.filter((f) => f.includes('/dist/server/') || f.includes('/dist/fleet/'))).toEqual([]);
    expect(loaded.filter((f) => f.endsWith(STORE_SQLITE))).toEqual([]);
  });

  it("'volbench/fleet' loads the AWS SDK", () => {
    const loaded = modulesLoadedBy('dist/fleet/index.js');
    expect(servicePackages(loaded)).toEqual(expect.arrayContaining(['@aws-sdk/client-cloudformation', '@aws-sdk/client-ec2']));
  });

  it("'volbench/server' loads the service and its packages", () => {
    // The same probe sees them where they are loaded, so the first check can fail.
    const loaded = modulesLoadedBy('dist/server/index.js');
    expect(servicePackages(loaded)).toEqual(expect.arrayContaining(['fastify', 'prom-client']));
    expect(loaded.some((f) => f.endsWith(STORE_SQLITE))).toBe(true);
  });

  it('package.json maps the subpaths to built files and keeps the addon private', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './fleet', './lambda', './package.json', './server']);
    expect(pkg.exports['./fleet']).toEqual({ types: './dist/fleet/index.d.ts', default: './dist/fleet/index.js' });
    expect(pkg.exports['./server']).toEqual({ types: './dist/server/index.d.ts', default: './dist/server/index.js' });
    const library = (await import(join(root, 'dist', 'index.js'))) as Record<string, unknown>;
    expect(typeof library.runJobs).toBe('function');
    expect(Object.keys(library)).not.toContain('nativeAddon');
    expect(Object.keys(library)).not.toContain('buildServer');
    const server = (await import(join(root, 'dist', 'server', 'index.js'))) as Record<string, unknown>;
    expect(Object.keys(server).sort()).toEqual(['buildServer', 'certificateFingerprint', 'readTlsFiles']);
  });
});
