/**
 * Every package `npm ci` installs accepts every supported Node. `npm ci` printed EBADENGINE as the
 * first thing a new user saw: volbench said Node >= 20 while two dependencies wanted 22. Expected:
 * volbench's own range starts at 22.16 (node:sqlite's isOpen and isTransaction), and each
 * package-lock.json entry that names an engines.node range and is not optional admits 22.16.0
 * and the pinned 22, 24 and 26 releases CI runs. (.ci/run also fails when npm ci prints
 * EBADENGINE, and the install tests when installing the tarball does, on 22, 24 and 26.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

import { nodeVersions } from '../../scripts/node-versions.mjs';
import { requires } from '../helpers/requires.js';

requires();

const repoRoot = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
};
const pinned = nodeVersions();
const NODES = ['22.16.0', pinned.NODE_22, pinned.NODE_24, pinned.NODE_26];

describe('engines', () => {
  it('volbench asks for Node 22.16 or newer, in package.json and its lock', () => {
    expect(pkg.engines.node).toBe('>=22.16');
    expect(lock.packages[''].engines).toEqual({ node: '>=22.16' });
    expect(NODES.map((v) => semver.major(v))).toEqual([22, 22, 24, 26]);
  });

  it('every locked package admits every supported Node', () => {
    const refused: string[] = [];
    let ranges = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || !range) continue;
      // npm skips an optional package whose engines refuse this Node, without a warning (rollup's
      // optional @napi-rs/lzma-linux-x64-gnu wants 22.20+; `npm ci` on 22.16.0 printed nothing).
      if (entry.optional) continue;
      ranges++;
      for (const v of NODES) if (!semver.satisfies(v, range, { includePrerelease: true })) refused.push(`${path} (${range}) refuses ${v}`);
    }
    expect(ranges).toBeGreaterThan(20);
    expect(refused).toEqual([]);
  });
});
