/**
 * The OpenAPI document without a running service: a throwaway server (temporary data directory
 * and root) is built only to collect its routes' schemas. The document depends on neither.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { buildServer } from './app.js';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'volbench-openapi-'));
  try {
    const app = await buildServer({ dataDir: join(dir, 'data'), targetRoots: [dir], token: 'unused' });
    await app.ready();
    const doc = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return doc;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
