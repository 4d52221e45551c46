/**
 * A worker thread running one of this package's modules. The package runs built (dist/*.js);
 * the tests run the TypeScript sources, where there is no .js beside the module: there the
 * thread loads the .ts itself, Node transforming the types as it loads each file and a resolve
 * hook mapping the sources' `./x.js` imports to `./x.ts`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Runs in the thread before the module, from the sources only (CommonJS: an eval'd script). */
const FROM_SOURCES = `
const { enableCompileCache, registerHooks } = require('node:module');
// Each file's transformed code is cached on disk (os.tmpdir()): the next thread loads in a third of the time.
enableCompileCache();
const { existsSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
const { workerData } = require('node:worker_threads');
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL && context.parentURL.endsWith('.ts')) {
      const source = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
      if (existsSync(fileURLToPath(source))) return next(source.href, context);
    }
    return next(specifier, context);
  },
});
import(workerData.entry);
`;

/** A thread running `name` (`report-worker`), a module beside `fromUrl` (the caller's import.meta.url). */
export function startModuleThread(name: string, fromUrl: string, options: WorkerOptions & { workerData: object }): Worker {
  const built = new URL(`./${name}.js`, fromUrl);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  const entry = new URL(`./${name}.ts`, fromUrl).href;
  return new Worker(FROM_SOURCES, {
    ...options,
    eval: true,
    workerData: { ...options.workerData, entry },
    execArgv: ['--experimental-transform-types', '--disable-warning=ExperimentalWarning'],
  });
}
