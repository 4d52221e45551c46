/**
 * fio job files posted as text/plain. `${VAR}` would read the server's environment (where the
 * token lives), so job files here see an empty environment and such lines are refused.
 */
import { parseJobFile } from '../jobspec/index.js';
import type { JobSpec } from '../jobspec/types.js';

export function specFromJobFile(text: string): JobSpec {
  return parseJobFile(text, {});
}
