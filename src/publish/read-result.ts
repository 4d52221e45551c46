/**
 * A result as the report reads it: fio's part as fio writes it (checked by what the report
 * reads: a job's name and error), and volbench's own section through its zod schema
 * (src/fio-output/fio-result.ts), so every cloud fact, entitlement, statistic and analysis the
 * report uses has the type the library wrote. A section the schema refuses is named by its path.
 */
import { VolbenchError } from '../errors.js';
import { volbenchCloudSchema, volbenchSectionSchema, type FioJson, type VolbenchCloud, type VolbenchSection } from '../fio-output/fio-result.js';

/** A result whose volbench section, if any, passed the schema. */
export type ReadResult = FioJson & { volbench?: VolbenchSection };

export const EXPECTED_RESULT = 'fio JSON (volbench or fio with --output-format=json or json+)';
const EXPECTED_SECTION = 'a volbench result of schema_version 3 (report an older one with the volbench that wrote it, or run it again)';

/** Checks the parts of fio's document the report reads, naming the first wrong one. */
function checkJobs(doc: FioJson, source: string): void {
  if (!Array.isArray(doc.jobs)) throw new VolbenchError('EINVALID_ARGS', `${source}: "jobs" is not a list`, { field: `${source}: jobs`, accepted: EXPECTED_RESULT });
  doc.jobs.forEach((job, i) => {
    const ok = typeof job === 'object' && job !== null && typeof job.jobname === 'string' && typeof job.error === 'number';
    if (!ok) {
      throw new VolbenchError('EINVALID_ARGS', `${source}: jobs[${i}] is not a fio job entry (it needs "jobname" and "error")`, {
        field: `${source}: jobs[${i}]`, accepted: EXPECTED_RESULT,
      });
    }
  });
}

/** `doc` with its volbench section parsed, or a VolbenchError naming `source` and the first path the schema refused. */
export function readResult(doc: FioJson, source: string): ReadResult {
  checkJobs(doc, source);
  if (doc.volbench === undefined) return doc;
  const parsed = volbenchSectionSchema.safeParse(doc.volbench);
  if (parsed.success) return { ...doc, volbench: parsed.data };
  const issue = parsed.error.issues[0];
  const path = ['volbench', ...issue.path.map(String)].join('.');
  const version = (doc.volbench as { schema_version?: unknown }).schema_version;
  const written = typeof version === 'number' ? ` (written as schema_version ${version})` : '';
  throw new VolbenchError('EINVALID_ARGS', `${source}: ${path}: ${issue.message}${written}`, { field: `${source}: ${path}`, accepted: EXPECTED_SECTION });
}

/** What is known of a volume without a result (`volbench.cloud`'s shape), or undefined when it is not that. */
export function readCloudSection(v: unknown): VolbenchCloud | undefined {
  const parsed = volbenchCloudSchema.safeParse(v);
  return parsed.success ? parsed.data : undefined;
}
