/**
 * Result files for a report: fio's JSON as volbench or fio wrote it (text before the document,
 * such as fio's warnings, is skipped). A file that is not one names itself and what was expected.
 */
import { readFile, stat } from 'node:fs/promises';

import { VolbenchError } from '../errors.js';
import { parseFioJsonText } from '../compare/read-result.js';
import type { FioJson } from '../fio-output/fio-result.js';
import type { ReportInput } from './model.js';

/** Larger than any result of a long json+ run with per-second series. */
export const MAX_RESULT_BYTES = 256 * 1024 * 1024;

const EXPECTED = 'fio JSON (volbench or fio with --output-format=json or json+)';

/** Checks the parts of a document the report reads, naming the first wrong one. */
export function checkFioDocument(doc: FioJson, source: string): FioJson {
  doc.jobs.forEach((job, i) => {
    const ok = typeof job === 'object' && job !== null && typeof job.jobname === 'string' && typeof job.error === 'number';
    if (!ok) {
      throw new VolbenchError('EINVALID_ARGS', `${source}: jobs[${i}] is not a fio job entry (it needs "jobname" and "error")`, {
        field: `${source}: jobs[${i}]`,
        accepted: EXPECTED,
      });
    }
  });
  return doc;
}

export function parseReportInput(text: string, source: string): ReportInput {
  return { source, result: checkFioDocument(parseFioJsonText(text, source), source), status: 'finished' };
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
