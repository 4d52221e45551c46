/**
 * volbench/server: the HTTP service, apart from the library so that `import 'volbench'` loads
 * no Fastify, SQLite or Prometheus client.
 *
 *   import { buildServer } from 'volbench/server';
 *   const app = await buildServer({ token, dataDir, targetRoots: ['/mnt/gp3'] });
 *   await app.listen({ port: 8080 });
 *
 * HTTPS: `buildServer({ ..., tls: readTlsFiles('cert.pem', 'key.pem') })`.
 */
// First: on a Node older than volbench needs, this import fails with the reason.
import '../require-node.js';
export { buildServer } from './http/app.js';
export type { ServerConfig, TlsIdentity } from './config.js';
export { certificateFingerprint, readTlsFiles } from './http/tls.js';
