/**
 * `npm run package:lambda -- --arch x64|arm64` makes one zip per architecture for Lambda's
 * managed Node runtimes (the run's global setup makes each once, tests/helpers/fixture-service.ts):
 * the handler, the production dependencies and that architecture's
 * prebuilt addon only (no sources, tests or build trees), under Lambda's 250 MB unzipped, every
 * native module needing nothing newer than Amazon Linux 2023's. Unzipped, the x64 one loads its
 * handler and addon here; the arm64 one does under qemu-user.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { elfArch, tooNew } from '../../scripts/elf-check.mjs';
import { LAMBDA_UNZIPPED_LIMIT } from '../../scripts/package-lambda.mjs';
import { fixture } from '../helpers/fixtures.js';
import { QEMU, nodeDist, runAsync, runRoot } from '../helpers/packaging.js';
import { requires } from '../helpers/requires.js';

const needs = requires('packaging', 'qemu');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), `volbench-lambda-${process.pid}-`));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }), 300_000);

const LOAD = "const { handler } = await import('./dist/server/lambda.js'); const { availableEngines } = await import('./dist/index.js'); " +
  "console.log(JSON.stringify({ handler: typeof handler, engines: availableEngines() }));";

async function zipFor(arch: 'x64' | 'arm64'): Promise<{ dir: string; names: string[] }> {
  // The run's zip, made by the script from the run's packed tarball (kept in VOLBENCH_CACHE while
  // what it is made from stays the same: tests/helpers/fixture-service.ts).
  const zip = await fixture(`lambda-${arch}`);
  const listing = await runAsync('unzip', ['-Z', '-t', zip]);
  const unzippedBytes = Number(/(\d+) bytes uncompressed/.exec(listing.stdout)?.[1]);
  expect(unzippedBytes).toBeGreaterThan(10 * 1000 * 1000);
  expect(unzippedBytes).toBeLessThan(LAMBDA_UNZIPPED_LIMIT);
  const names = (await runAsync('unzip', ['-Z1', zip])).stdout.trim().split('\n');
  const dir = join(tmp, `unzipped-${arch}`);
  mkdirSync(dir);
  expect((await runAsync('unzip', ['-q', zip, '-d', dir])).status).toBe(0);
  return { dir, names };
}

function checkContents(names: string[], dir: string, arch: string): void {
  expect(names).toEqual(expect.arrayContaining(['package.json', 'dist/server/lambda.js', 'openapi.yaml', 'prebuilds/manifest.json', `prebuilds/linux-${arch}/volbench.node`, 'node_modules/fastify/package.json']));
  const natives = names.filter((n) => n.endsWith('.node'));
  expect(natives).toEqual([`prebuilds/linux-${arch}/volbench.node`]);
  for (const n of natives) {
    expect(elfArch(join(dir, n))).toBe(arch);
    expect(tooNew(join(dir, n))).toEqual([]);
  }
  // volbench's own sources, tests and build trees, and its development packages, stay out.
  const own = names.filter((n) => !n.startsWith('node_modules/'));
  expect(own.filter((n) => /^(native|tests|bench|build|scripts|install|src)\/|^binding\.gyp$|\.test\.[jt]s$/.test(n))).toEqual([]);
  expect(names.filter((n) => /^node_modules\/(vitest|typescript|node-gyp|puppeteer-core|fast-check)\//.test(n))).toEqual([]);
}

describe('the Lambda zips', () => {
  it('x64: the handler and the x64 addon, under 250 MB unzipped, loading here', async () => {
    const { dir, names } = await zipFor('x64');
    checkContents(names, dir, 'x64');
    const loaded = await runAsync(process.execPath, ['--input-type=module', '-e', LOAD], { cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir } });
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toEqual({ handler: 'function', engines: expect.arrayContaining(['psync', 'null']) });
  }, 900_000);

  const qemuSkip = needs.missing('qemu');
  it.skipIf(qemuSkip !== undefined)(`arm64: the handler and the arm64 addon, loading under qemu-user${qemuSkip ? ` [skipped: ${qemuSkip}]` : ''}`, async () => {
    const { dir, names } = await zipFor('arm64');
    checkContents(names, dir, 'arm64');
    const node = join(nodeDist('arm64'), 'bin', 'node');
    const loaded = await runAsync(QEMU, ['-L', join(runRoot(), 'usr', 'aarch64-linux-gnu'), node, '--input-type=module', '-e', LOAD], { cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir } });
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toEqual({ handler: 'function', engines: ['psync', 'sync', 'null'] });
  }, 900_000);
});
