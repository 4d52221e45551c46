/**
 * buildServer: the HTTP service as a Fastify app, for `volbench serve`, the Lambda handler and
 * the tests. It opens the store, recovers what a previous process left (interrupted runs fail,
 * their files go; queued runs queue again) and registers the routes. `app.close()` stops
 * running runs and closes the store.
 */
import { realpathSync } from 'node:fs';

import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';

import { VolbenchError } from '../../errors.js';
import { setStuckThreadLimit } from '../../device/root-calls.js';
import { registerAuth } from './auth.js';
import { limitsOf, reportBudgetsOf, type ServerConfig } from '../config.js';
import { SILENT_TIMEOUT_MS, connectionCap, descriptorLimit, limitConnections } from './connections.js';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './error-handler.js';
import { registerJsonBodies } from './json-body.js';
import { validatorCompiler } from './validator.js';
import { loggerOptions } from './logging.js';
import { registerOpenApi } from './openapi.js';
import { closeRoots, resolveRoots } from '../admission/roots.js';
import { registerHealthRoutes } from '../routes/health.js';
import { registerEventsRoute } from '../routes/run-events.js';
import { registerRunRoutes } from '../routes/run-get.js';
import { registerResultRoute } from '../routes/run-result.js';
import { registerReportRoutes } from '../routes/report.js';
import { ReportRenderer } from '../reports/report-renderer.js';
import { registerWebRoutes } from './web.js';
import { registerListRoute } from '../routes/runs-list.js';
import { registerSubmitRoute } from '../routes/runs-submit.js';
import { MAX_PARAM_LENGTH } from '../routes/common.js';
import { registerSuiteRoutes } from '../routes/suites.js';
import { registerCatalogRoutes } from '../routes/catalog.js';
import { registerTargetsRoute } from '../routes/targets.js';
import type { RouteDeps } from '../routes/types.js';
import { RunService } from '../runs/run-service.js';
import { lockDataDir, openDatabase } from '../store/database.js';
import { registerStudyRoutes } from '../routes/studies.js';
import { registerStudyEventsRoute } from '../routes/study-events.js';
import { registerStudyReportRoute } from '../routes/study-report.js';
import { startStudies } from '../studies/start-studies.js';

export async function buildServer(config: ServerConfig): Promise<FastifyInstance> {
  if (!config.token) throw new VolbenchError('EINVALID_ARGS', 'the service needs a token', { accepted: '--token or VOLBENCH_TOKEN' });
  const limits = limitsOf(config);
  // Per process: the last service built sets it.
  setStuckThreadLimit(limits.maxStuckThreads);
  const roots = await resolveRoots(config.targetRoots, config.allowBlockWrite);
  let lock: ReturnType<typeof lockDataDir>;
  let db: ReturnType<typeof openDatabase>;
  try {
    lock = lockDataDir(config.dataDir);
  } catch (err) {
    closeRoots(roots);
    throw err;
  }
  try {
    db = openDatabase(config.dataDir);
  } catch (err) {
    lock.close();
    closeRoots(roots);
    throw err;
  }
  const reserved = [realpathSync(config.dataDir)];
  const app = Fastify({
    // HTTPS when the operator gave a certificate; Fastify serves plain HTTP for null.
    https: config.tls ? { cert: config.tls.cert, key: config.tls.key } : null,
    logger: loggerOptions(config.logger),
    bodyLimit: limits.bodyLimitBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Refusals Fastify would answer in its own JSON go through the service's problems instead.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    return503OnClosing: false,
  });
  try {
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandling(app);
    registerJsonBodies(app);
    registerAuth(app, config.token, config.studies?.token);
    await registerOpenApi(app);
    const service = new RunService({ db, dataDir: config.dataDir, roots, reserved, limits, logError: (err, context) => app.log.error({ err }, context) });
    const cap = config.maxConnections ?? connectionCap(descriptorLimit());
    service.metrics.watchConnections({ ...limitConnections(app.server, { maxConnections: cap, silentTimeoutMs: config.silentTimeoutMs ?? SILENT_TIMEOUT_MS }), cap });
    // preClose, before Fastify waits for open connections: stopping the runs sends their final
    // events, which ends the SSE streams that would otherwise hold the close up.
    app.addHook('preClose', async () => service.close());
    app.addHook('onClose', async () => {
      if (db.open) db.close();
      if (lock.open) lock.close();
      closeRoots(roots);
    });
    await service.recover();
    const reports = new ReportRenderer(config.dataDir, reportBudgetsOf(limits), (id) => service.store.result(id));
    service.metrics.watchReports(() => reports.stats());
    app.addHook('onClose', async () => reports.close());
    const studies = config.studies ? startStudies(config.studies, db, (line) => app.log.warn(line)) : undefined;
    if (studies) {
      app.addHook('preClose', async () => studies.close());
      app.decorate('studies', studies);
    }
    const deps: RouteDeps = { service, waitForEveryRun: config.waitForEveryRun ?? false, reports, ...(studies ? { studies } : {}) };
    const routes = app.withTypeProvider<ZodTypeProvider>();
    for (const register of [registerSubmitRoute, registerListRoute, registerRunRoutes, registerResultRoute, registerEventsRoute, registerSuiteRoutes,
      registerTargetsRoute, registerHealthRoutes, registerReportRoutes, registerCatalogRoutes, registerStudyRoutes, registerStudyEventsRoute, registerStudyReportRoute]) {
      register(routes, deps);
    }
    registerWebRoutes(app);
    // Every open study of the index is taken on again (after a restart, those it was driving).
    if (studies) await studies.resume();
    return app;
  } catch (err) {
    await app.close();
    if (db.open) db.close();
    if (lock.open) lock.close();
    closeRoots(roots);
    throw err;
  }
}
