// The pinned Node versions of scripts/node-versions.env (NODE_22, NODE_24, NODE_26, NODE_BUNDLE).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @returns {Record<string, string>} */
export function nodeVersions() {
  const text = readFileSync(join(resolve(fileURLToPath(import.meta.url), '..'), 'node-versions.env'), 'utf8');
  return Object.fromEntries([...text.matchAll(/^(NODE_\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
}
