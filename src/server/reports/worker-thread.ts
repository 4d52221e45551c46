/**
 * A worker thread running one of this package's modules: the built `.js` beside the caller. Run
 * from the TypeScript sources (the tests), there is no `.js`: the process's own loader (its
 * `--import`, which a worker inherits) resolves the name to the `.ts`.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A thread running `name` (`report-worker`), a module beside `fromUrl` (the caller's import.meta.url). */
export function startModuleThread(name: string, fromUrl: string, options: WorkerOptions & { workerData: object }): Worker {
  return new Worker(new URL(`./${name}.js`, fromUrl), options);
}
