// The fingerprint of the addon's sources: what a prebuilt binary was made from. It covers
// binding.gyp and every file under native/, by path and content, and nothing else (node-addon-api
// is headers over N-API's stable ABI, so its version does not decide the binary). The release
// script (scripts/prebuilds.mjs) records it in prebuilds/manifest.json; the install script and the
// tests compare it with the sources at hand.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * @param {string} dir
 * @param {string[]} out
 * @returns {string[]}
 */
function filesUnder(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/**
 * sha256 (hex) over binding.gyp and native/** of the package at `root`.
 * @param {string} root
 * @returns {string}
 */
export function addonSourcesHash(root) {
  const files = [join(root, 'binding.gyp'), ...filesUnder(join(root, 'native'), [])];
  const names = files.map((f) => relative(root, f).split(sep).join('/')).sort();
  const hash = createHash('sha256');
  for (const name of names) {
    const content = readFileSync(join(root, name));
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}
