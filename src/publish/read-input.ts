/**
 * Result files for a report: fio's JSON as volbench or fio wrote it (text before the document,
 * such as fio's warnings, is skipped), read through the result schema (read-result.ts). A file
 * that is not one names itself and what was expected.
 */
import { readFile, stat } from 'node:fs/promises';

import { VolbenchError } from '../errors.js';
import { parseFioJsonText } from '../compare/read-result.js';
import type { ReportInput } from './model.js';
import { EXPECTED_RESULT as EXPECTED, readResult } from './read-result.js';

/** Larger than any result of a long json+ run with per-second series. */
export const MAX_RESULT_BYTES = 256 * 1024 * 1024;

export function parseReportInput(text: string, source: string): ReportInput {
  return { source, result: readResult(parseFioJsonText(text, source), source), status: 'finished' };
}

export async function readReportFile(path: string): Promise<ReportInput> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new VolbenchError('EINVALID_ARGS', `${path} is not a regular file`, { field: path, accepted: EXPECTED });
    if (info.size > MAX_RESULT_BYTES) {
      throw new VolbenchError('EINVALID_ARGS', `${path} is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB`, { field: path, accepted: EXPECTED });
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof VolbenchError) throw err;
    throw new VolbenchError('EINVALID_ARGS', `cannot read ${path}: ${(err as Error).message}`, { field: path, accepted: EXPECTED, cause: err });
  }
  return parseReportInput(text, path);
}
