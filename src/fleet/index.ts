// First: on a Node older than volbench needs, this import fails with the reason.
import '../require-node.js';
export { awsCall } from '../cloud/aws-call.js';
export { checkFleetVolume, fleetVolume, fleetVolumes, fleetVolumeTypes, volumeOfMember } from './volumes.js';
export type { FleetVolume } from './volumes.js';
export { formatPlan, newFleetId, planFleet } from './plan.js';
export { checkFleetId, FLEET_ID, FLEET_TAG, stackNameFor, tlsKeyParameterName, tokenParameterName, VOLUME_LABEL } from './names.js';
export type { FleetMember, FleetPlan, FleetPlanInput } from './plan.js';
export { fleetClients } from './aws.js';
export type { AwsOptions, FleetClients } from './aws.js';
export { defaultStateDir, listRemoteStates, listStates, loadState, saveState } from './state.js';
export type { FleetMemberState, FleetState, FleetStatus } from './state.js';
export { fleetUp, templateBody } from './stacks.js';
export { fleetDown } from './down.js';
export { bundleArch, instanceArchitecture } from './architecture.js';
export type { Architecture } from './architecture.js';
export { fleetCertificate } from './certificate.js';
export type { CertificateOptions, FleetCertificate } from './certificate.js';
export { preflight } from './preflight.js';
export type { Preflight, PreflightInput } from './preflight.js';
export { checkWorkloadFits, defaultTtlSec, expiresAt, EXPIRES_TAG, fleetNow, parseTtl, secondsLeft } from './ttl.js';
export type { UpOptions } from './stacks.js';
export type { DownOptions, DownResult } from './down.js';
export { readEndpointMap, runFleet } from './run.js';
export type { FleetRunOptions, MemberResult, RunWorkload } from './run.js';
export { fleetReport, fleetReportInputs, savedResults } from './report.js';
export { expired, findExpired, reapFleets } from './reap.js';
export type { Reaped, ReapOptions, ReapPlan } from './reap.js';
export { fleetStacks, memberEndpoint, memberFingerprint, parseEndpoint } from './member-stacks.js';
export type { FleetStacks, MemberStack } from './member-stacks.js';
export { ResultFiles } from './result-files.js';
export { parseFleetState } from './state-schema.js';
export { deleteStacksNow, deleteStacksOnAbort } from './teardown.js';
export type { AbortTeardownOptions, StacksDeleted } from './teardown.js';
export { extendFleet, fitWorkload } from './extend.js';
export type { FitOptions } from './extend.js';
export { jobFileSeconds, workloadSeconds } from './workload.js';
export { compareFleet, studyPassed } from './compare.js';
export type { CompareOptions, CompareOutcome } from './compare.js';
export { createMemberStack } from './member-stack.js';
export type { MemberStackInput, MemberStackOptions, MemberStackOutcome } from './member-stack.js';
export { stackParameters } from './stack-parameters.js';
export type { FleetStackSettings } from './stack-parameters.js';
export { FLEET_EVENT_NAMES, fleetLog } from './events.js';
export type {
  FleetCreated, FleetEvent, FleetEventName, FleetKept, FleetLog, FleetReportEvent, FleetTearingDown, FleetTornDown, MemberFailed, MemberOutcome,
  MemberProgress, MemberResultEvent, MemberUp, OnFleetEvent,
} from './events.js';
