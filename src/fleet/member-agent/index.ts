export { runMemberAgent } from './agent.js';
export type { MemberAgentOptions, MemberAgentOutcome } from './agent.js';
export { MemberObjects } from './objects.js';
export { MEMBER_SIGNAL_RESOURCE, uniqueId } from './signal.js';
export type { StackSignal } from './signal.js';
export { acceptSpec, checkSpecSha256, memberEntry } from './spec.js';
export { shutdownHost } from './shutdown.js';
