/**
 * Imported first by each of the package's entries: on a Node older than volbench needs, the
 * import fails at once with the reason, before a module that needs a newer Node is evaluated.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== null) throw new Error(problem);
