// What a member's sandbox needs from the stack moto made, read the way the instance would see it:
// the instance's id, type, zone and image, its user data as CloudFormation rendered it (moto
// substitutes the template's Fn::Sub with the stack's parameters), and its EBS volumes by device
// name (a data volume's NVMe serial is its id without the dash).
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { DescribeInstanceAttributeCommand, DescribeInstancesCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';

import type { ImdsIdentity } from './imds.js';

/** SDK client settings: the region, moto's endpoint, any credentials. */
export interface SdkSettings { region: string; endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } }
export interface StackMember {
  stackName: string;
  instanceId: string;
  identity: ImdsIdentity;
  /** The user data as CloudFormation rendered it for this stack. */
  userData: string;
  volumes: { volumeId: string; device: string | undefined; serial: string }[];
}

/**
 * The member of `stackName` (its one AWS::EC2::Instance, or the one with logical id `logicalId`).
 * aws: SDK client settings ({ region, endpoint, credentials }). Answers { stackName, instanceId,
 * identity: { instanceId, instanceType, region, availabilityZone, imageId }, userData,
 * volumes: [{ volumeId, device, serial }] }.
 */
export async function memberOfStack({ aws, stackName, logicalId }: { aws: SdkSettings; stackName: string; logicalId?: string }): Promise<StackMember> {
  const cfn = new CloudFormationClient(aws);
  const ec2 = new EC2Client(aws);
  try {
    const resources = (await cfn.send(new DescribeStackResourcesCommand({ StackName: stackName }))).StackResources ?? [];
    const instances = resources.filter((r) => r.ResourceType === 'AWS::EC2::Instance' && (!logicalId || r.LogicalResourceId === logicalId));
    if (instances.length !== 1) throw new Error(`${stackName}: ${instances.length} instances${logicalId ? ` named ${logicalId}` : ''}, not one`);
    const instanceId = instances[0].PhysicalResourceId!;
    const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const instance = described.Reservations?.[0]?.Instances?.[0];
    if (!instance) throw new Error(`${stackName}: instance ${instanceId} is not described`);
    const attribute = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: instanceId, Attribute: 'userData' }));
    const userData = Buffer.from(attribute.UserData?.Value ?? '', 'base64').toString('utf8');
    const attached = await ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [instanceId] }] }));
    const volumes = (attached.Volumes ?? []).map((v) => ({
      volumeId: v.VolumeId!,
      device: v.Attachments?.find((a) => a.InstanceId === instanceId)?.Device,
      serial: v.VolumeId!.replace('-', ''),
    }));
    return {
      stackName,
      instanceId,
      identity: {
        instanceId,
        instanceType: instance.InstanceType!,
        region: await ec2.config.region(),
        availabilityZone: instance.Placement?.AvailabilityZone!,
        imageId: instance.ImageId,
        architecture: instance.Architecture,
      },
      userData,
      volumes,
    };
  } finally {
    cfn.destroy();
    ec2.destroy();
  }
}
