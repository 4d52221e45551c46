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

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const HOOKS = `
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  process.stderr.write('resolved ' + r.url + '\\n');
  return r;
}`;

/** Every module file loaded by importing `entry` (a path under dist/). */
function modulesLoadedBy(entry: string): string[] {
  const script = `
    import { register, createRequire } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));
    await import(${JSON.stringify(join(root, entry))});
    const cache = Object.keys(createRequire(import.meta.url).cache);
    process.stderr.write(cache.map((f) => 'required ' + f).join('\\n') + '\\n');
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`importing ${entry} failed: ${r.stderr}`);
  return r.stderr.split('\n').filter((l) => /^(resolved|required) /.test(l)).map((l) => l.slice(l.indexOf(' ') + 1));
}

const SERVICE_PACKAGES = /node_modules\/(fastify|@fastify\/[^/]+|better-sqlite3|prom-client|fastify-type-provider-zod|@aws-sdk\/[^/]+)\//;

function servicePackages(files: string[]): string[] {
  return [...new Set(files.flatMap((f) => SERVICE_PACKAGES.exec(f)?.[1] ?? []))].sort();
}

describe('the package entries', () => {
  it("'volbench' loads no Fastify, SQLite, prom-client or AWS SDK, and none of src/server or src/fleet", () => {
    const loaded = modulesLoadedBy('dist/index.js');
    expect(loaded.some((f) => f.includes('/dist/index.js'))).toBe(true);
    expect(servicePackages(loaded)).toEqual([]);
    expect(loaded.filter((f) => f.includes('/dist/server/') || f.includes('/dist/fleet/'))).toEqual([]);
  });

  it("'volbench/fleet' loads the AWS SDK", () => {
    const loaded = modulesLoadedBy('dist/fleet/index.js');
    expect(servicePackages(loaded)).toEqual(expect.arrayContaining(['@aws-sdk/client-cloudformation', '@aws-sdk/client-ec2']));
  });

  it("'volbench/server' loads the service and its packages", () => {
    // The same probe sees them where they are loaded, so the first check can fail.
    const loaded = modulesLoadedBy('dist/server/index.js');
    expect(servicePackages(loaded)).toEqual(expect.arrayContaining(['better-sqlite3', 'fastify', 'prom-client']));
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
    expect(Object.keys(server)).toEqual(['buildServer']);
  });
});
