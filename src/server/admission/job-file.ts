/**
 * fio job files posted as text/plain. `${VAR}` would read the server's environment (where the
 * token lives), so job files here see an empty environment and such lines are refused.
 */
import { parseJobFile, type SpecBounds } from '../../jobspec/index.js';
import type { JobSpec } from '../../jobspec/types.js';

/** `bounds.maxJobs` refuses a file of more jobs than the server runs before the rest is read. */
export function specFromJobFile(text: string, bounds: SpecBounds = {}): JobSpec {
  return parseJobFile(text, {}, bounds);
}
