/**
 * A member's data volume as EC2 made it: the volume its stack's instance (DescribeStackResources)
 * has at /dev/sdf, where the launch template maps it. A result then names the volume it ran on,
 * and a later look at CloudWatch or the console finds it. Instance store has no volume id.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';

import { awsCall, type FleetClients } from './aws.js';
import { stackInstances } from './member-stacks.js';

/** The data volume's device name in infra/cloudformation/instance.yaml's launch template. */
export const DATA_DEVICE = '/dev/sdf';

/** The volume id at /dev/sdf of `instanceId`, as EC2 describes it; undefined when it has none there. */
export async function dataVolumeOf(instanceId: string, clients: FleetClients): Promise<string | undefined> {
  const out = await awsCall('ec2:DescribeInstances', () => clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] })));
  const instance = out.Reservations?.[0]?.Instances?.[0];
  const id = instance?.BlockDeviceMappings?.find((b) => b.DeviceName === DATA_DEVICE || b.DeviceName === DATA_DEVICE.slice(5))?.Ebs?.VolumeId;
  return id !== undefined && /^vol-[0-9a-f]{8,17}$/.test(id) ? id : undefined;
}

/**
 * The member's volume id from its stack (`stackId`): `instance-store` for instance store, else
 * the volume at /dev/sdf of the instance the stack's resources list; undefined when EC2 shows none
 * (an emulator that does not launch the template's mapping), or the lookup fails (it describes
 * the results; it never stops a study).
 */
export async function memberVolumeId(stackId: string, volumeType: string, clients: FleetClients): Promise<string | undefined> {
  if (volumeType === 'instance-store') return 'instance-store';
  try {
    const [instance] = await stackInstances(stackId, clients);
    return instance ? await dataVolumeOf(instance, clients) : undefined;
  } catch {
    return undefined;
  }
}
