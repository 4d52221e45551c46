/**
 * Runs the TypeScript sources in plain Node, with no build: Node transforms the types as it loads
 * each .ts file, and this resolve hook maps what the sources import (`./x.js`, as they are written
 * for the build) to the `.ts` beside it when no `.js` is there. The rehearsal runs with it, and so
 * does each test process (vitest.config.ts), so that a worker thread the service starts from its
 * sources (it names its built `.js`) loads the `.ts`: a worker inherits its parent's execArgv.
 *
 *   node --experimental-transform-types --import ./tests/harness/from-source.js FILE.ts
 *
 * (FROM_SOURCE_EXEC_ARGV in node-options.ts). `--experimental-transform-types`, not type stripping
 * alone, wherever src/ loads: it declares parameter properties. Node 22 and 24 have the transform;
 * Node 26 strips types only, so there the harness alone (no src/) runs from its sources.
 *
 * JavaScript, not TypeScript, because it turns the compile cache on: a .ts hook would load Node's
 * TypeScript transformer in every thread before the cache could spare it, and a report thread's
 * heap budget has no room for it. tsconfig.json checks it all the same (checkJs).
 */
import { enableCompileCache, registerHooks } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `file:` URL of the `.ts` to load for `specifier`, or undefined to resolve it as it is.
 * @param {string} specifier
 * @param {string | undefined} parentURL
 * @returns {string | undefined}
 */
function sourceFor(specifier, parentURL) {
  if (!specifier.endsWith('.js')) return undefined;
  let target;
  if (specifier.startsWith('file:')) target = new URL(specifier);
  else if (specifier.startsWith('.') && parentURL?.startsWith('file:')) target = new URL(specifier, parentURL);
  else return undefined;
  if (existsSync(fileURLToPath(target))) return undefined;
  const source = new URL(`${target.href.slice(0, -3)}.ts`);
  return existsSync(fileURLToPath(source)) ? source.href : undefined;
}

// Each file's transformed code is cached on disk (os.tmpdir()): the next process or thread loads
// in a third of the time, without the transformer.
enableCompileCache();
registerHooks({
  resolve(specifier, context, next) {
    const source = sourceFor(specifier, context.parentURL);
    return next(source ?? specifier, context);
  },
});
