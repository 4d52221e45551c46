/**
 * The oldest Node.js volbench runs on, checked before anything else loads: an older Node fails
 * late and obscurely (node:sqlite's DatabaseSync, process.getBuiltinModule), so it is stopped
 * first, with its version named. This file imports nothing, so it loads on any Node.
 */

/** package.json's engines.node, as numbers (a test holds the two together). */
export const NODE_MINIMUM: readonly [number, number] = [22, 16];

/** What is wrong with running on Node `version` (process.versions.node), or null when nothing is. */
export function nodeVersionProblem(version: string): string | null {
  const [major, minor] = version.split('.').map((n) => Number.parseInt(n, 10));
  const [wantMajor, wantMinor] = NODE_MINIMUM;
  const ok = major > wantMajor || (major === wantMajor && minor >= wantMinor);
  return ok ? null : `volbench needs Node.js ${wantMajor}.${wantMinor} or newer (this is ${version})`;
}
