/**
 * The node options that run the TypeScript sources (from-source.js says how): for a process or a
 * worker that imports src/ or tests/harness/ unbuilt. Apart from the hook itself, so that naming
 * them registers nothing.
 */
import { fileURLToPath } from 'node:url';

/**
 * src/ declares parameter properties, which type stripping alone refuses: the transform where the
 * running Node has it (22 and 24; 26 strips only, and refuses the flag).
 */
const TRANSFORM = process.allowedNodeEnvironmentFlags.has('--experimental-transform-types') ? ['--experimental-transform-types'] : [];

export const FROM_SOURCE_EXEC_ARGV: readonly string[] = [
  ...TRANSFORM, '--disable-warning=ExperimentalWarning', '--import', fileURLToPath(new URL('./from-source.js', import.meta.url)),
];
