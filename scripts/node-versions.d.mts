/** The pinned Node versions of scripts/node-versions.env (NODE_22, NODE_24, NODE_26, NODE_BUNDLE). */
export function nodeVersions(): Record<string, string>;
