/** A study as a state machine (steps.ts): its calls, its drivers' loop, its lease and its status. */
export { advanceStudy, cancelStudy, loadStudy } from './advance.js';
export type { Advanced } from './advance.js';
export type { StudyContext } from './context.js';
export { attachStudy, compareStudy } from './drive.js';
export type { DriveOptions, StudyOutcome } from './drive.js';
export { currentLease, DEFAULT_LEASE_SEC, HeldLease, leasedError, MAX_LEASE_SEC } from './lease.js';
export type { LeaseOptions } from './lease.js';
export { progressLine, readDone, readProgress, readResult } from './member-objects.js';
export { sha256Hex, specText, studySpec, writeSpec } from './spec.js';
export { prepareStudy, startStudy } from './start.js';
export type { PreparedStudy, StudyInput } from './start.js';
export { studyStatus } from './status.js';
export type { MemberStatus, StudyStatus } from './status.js';
export { isTerminal, STUDY_STEPS } from './steps.js';
