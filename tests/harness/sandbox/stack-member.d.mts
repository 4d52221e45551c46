import type { ImdsIdentity } from './imds.mjs';

export interface StackMember {
  stackName: string;
  instanceId: string;
  identity: ImdsIdentity;
  /** The user data as CloudFormation rendered it for this stack. */
  userData: string;
  volumes: { volumeId: string; device: string | undefined; serial: string }[];
}
export function memberOfStack(options: {
  aws: { region: string; endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  stackName: string;
  logicalId?: string;
}): Promise<StackMember>;
