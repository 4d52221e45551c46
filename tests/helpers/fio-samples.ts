/**
 * Real fio 3.33 outputs kept in tests/fixtures/fio/reference (copied from the shared
 * fio-reference samples), read the way `volbench compare` reads a file.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseFioJsonText } from '../../src/compare/index.js';
import type { FioJson } from '../../src/fio-output/fio-result.js';

export const REFERENCE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fio', 'reference');

export function fioSample(name: string): FioJson {
  return parseFioJsonText(readFileSync(join(REFERENCE_DIR, name), 'utf8'), name);
}
