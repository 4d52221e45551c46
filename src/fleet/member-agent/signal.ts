/**
 * The member's one signal to its stack: SUCCESS once it has accepted its spec and checked its
 * workload (the study is under way), FAILURE with the reason otherwise. It goes to the resource
 * that holds the stack's creation policy: the instance itself, whose creation began before this
 * process existed, so a FAILURE sent in the boot's first second is never lost (a wait condition
 * that depends on the instance would not have begun, and CloudFormation refuses its signals).
 *
 * SignalResource carries no message: as CloudFormation shows the UniqueId in the stack's reason
 * ("Received FAILURE signal with UniqueId ..."), a failure's reason goes there, cut to its 64
 * characters of [A-Za-z0-9._-].
 */
import { SignalResourceCommand, type CloudFormationClient } from '@aws-sdk/client-cloudformation';

import { awsCall } from '../aws.js';

/** The template's resource with the creation policy (infra/cloudformation/instance.yaml). */
export const MEMBER_SIGNAL_RESOURCE = 'Instance';

export interface StackSignal {
  cfn: CloudFormationClient;
  stackName: string;
  /** SUCCESS's UniqueId: the instance's id, as CloudFormation asks of EC2 signals. */
  instanceId: string;
}

/** `text` as a SignalResource UniqueId: 1 to 64 characters of [A-Za-z0-9._-]. */
export function uniqueId(text: string): string {
  const id = text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return id || 'member';
}

export async function signalStack(s: StackSignal, status: 'SUCCESS' | 'FAILURE', reason?: string): Promise<void> {
  await awsCall('cloudformation:SignalResource', () => s.cfn.send(new SignalResourceCommand({
    StackName: s.stackName, LogicalResourceId: MEMBER_SIGNAL_RESOURCE, Status: status,
    UniqueId: uniqueId(status === 'SUCCESS' ? s.instanceId : reason ?? 'failed'),
  })));
}
