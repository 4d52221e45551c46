/**
 * An old Node stops first, with the version volbench needs.
 *
 * Broke: on Node 20, `npm install` passed with only npm's EBADENGINE notice, `demo` and `run`
 * worked, and `serve` printed a token and died with "TypeError: Cannot destructure property
 * 'DatabaseSync' of 'loadSqlite(...)'" and a stack, never naming the Node version. Expected:
 * the CLI prints "volbench needs Node.js 22.16 or newer (this is 20.20.2)" and exits 2 before it
 * loads anything else, and importing the library throws an Error with the same text.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

import { NODE_MINIMUM, nodeVersionProblem } from '../../src/node-version.js';
import { CLI, ROOT } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';

requires('child', 'dist');

/** Debian's Node, older than volbench needs on the machines these tests were written on. */
const OLD_NODE = '/usr/bin/node';

function oldNodeVersion(): string | null {
  if (!existsSync(OLD_NODE)) return null;
  const version = execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  return nodeVersionProblem(version) === null ? null : version;
}

const old = oldNodeVersion();

describe('the Node version check', () => {
  it("names package.json's engines.node", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${NODE_MINIMUM.join('.')}`);
  });

  it('refuses what is older, by major and by minor, and takes what is not', () => {
    expect(nodeVersionProblem('20.20.2')).toBe('volbench needs Node.js 22.16 or newer (this is 20.20.2)');
    expect(nodeVersionProblem('22.15.1')).toBe('volbench needs Node.js 22.16 or newer (this is 22.15.1)');
    expect(nodeVersionProblem('22.16.0')).toBeNull();
    expect(nodeVersionProblem('23.0.0')).toBeNull();
    expect(nodeVersionProblem('24.21.0')).toBeNull();
  });
});

describe.skipIf(old === null)(`under an old Node (${OLD_NODE} ${old ?? 'is absent or new enough'})`, () => {
  const expected = `volbench needs Node.js 22.16 or newer (this is ${old})`;

  for (const args of [['--version'], ['serve']]) {
    it(`volbench ${args.join(' ')} exits 2 with one line naming Node 22.16, no stack`, () => {
      const ran = spawnSync(OLD_NODE, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
      expect(ran.status).toBe(2);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toBe(`${expected}\n`);
    });
  }

  it('importing the library, the service, the fleet or the Lambda handler throws an Error with the same text', () => {
    const entries = ['index.js', 'server/index.js', 'fleet/index.js', 'server/lambda.js'];
    const urls = JSON.stringify(entries.map((e) => pathToFileURL(join(ROOT, 'dist', e)).href));
    // One process: each import on its own, in turn.
    const script = `for (const url of ${urls}) await import(url).then(() => console.log('loaded'), (e) => console.log(e.constructor.name + ': ' + e.message));`;
    const ran = spawnSync(OLD_NODE, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(ran.stdout).toBe(entries.map(() => `Error: ${expected}\n`).join(''));
  });
});
