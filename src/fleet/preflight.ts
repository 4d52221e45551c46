/**
 * What `fleet up` checks before it creates anything: a VPC to launch in (the default one, or the
 * subnet given), a zone that offers the instance type, whether the subnet gives public
 * addresses (the template outputs a public endpoint only then), a subnet with no route out has
 * the VPC endpoints its members call (private-subnet.ts), and the key the bucket encrypts with
 * (the members then need kms:Decrypt on it). A refusal names the flag to change.
 */
import { DescribeInstanceTypeOfferingsCommand, DescribeSubnetsCommand, DescribeVpcsCommand, type Subnet } from '@aws-sdk/client-ec2';
import { GetBucketEncryptionCommand } from '@aws-sdk/client-s3';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { checkPrivateSubnet, type MemberMode } from './private-subnet.js';

export interface PreflightInput {
  clients: FleetClients;
  region: string;
  instanceType: string;
  bucket: string;
  subnetId?: string;
  /** The account, for a KMS key given by id. */
  accountId?: string;
  /** How the members run (default interactive): what a subnet with no route out must reach. */
  mode?: MemberMode;
  /** `--no-public-ip`: the members get no public address, whatever the subnet maps, so an internet gateway takes them nowhere. */
  noPublicIp?: boolean;
}

export interface Preflight {
  subnetId: string;
  vpcId: string;
  availabilityZone: string;
  publicAddress: boolean;
  /** The bucket's SSE-KMS key ARN, when it has one of its own. */
  kmsKeyArn?: string;
  /** Whether the subnet has a route out; without one, its VPC has the endpoints the members call. */
  routeOut?: boolean;
  /** Lines for the user (what an SSM port forward to a member in a private subnet would still need). */
  notes?: string[];
}

/** The zones of the region that offer the instance type. */
async function offeredZones(clients: FleetClients, instanceType: string): Promise<Set<string>> {
  const zones = new Set<string>();
  let NextToken: string | undefined;
  do {
    const out = await awsCall('ec2:DescribeInstanceTypeOfferings', () => clients.ec2.send(new DescribeInstanceTypeOfferingsCommand({
      LocationType: 'availability-zone', Filters: [{ Name: 'instance-type', Values: [instanceType] }], NextToken,
    })));
    for (const o of out.InstanceTypeOfferings ?? []) if (o.Location) zones.add(o.Location);
    NextToken = out.NextToken;
  } while (NextToken);
  return zones;
}

async function defaultSubnets(clients: FleetClients, region: string): Promise<Subnet[]> {
  const vpcs = await awsCall('ec2:DescribeVpcs', () => clients.ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] })));
  const vpc = vpcs.Vpcs?.[0]?.VpcId;
  if (!vpc) {
    throw new VolbenchError('EPREFLIGHT', `${region} has no default VPC (common under AWS Organizations): give --subnet (and its VPC comes with it); nothing was created`, {
      field: '--subnet', accepted: 'a subnet id, e.g. subnet-0123456789abcdef0, with a route out or in a VPC with endpoints for S3 and CloudFormation (and SSM for interactive members)',
    });
  }
  const out = await awsCall('ec2:DescribeSubnets', () => clients.ec2.send(new DescribeSubnetsCommand({
    Filters: [{ Name: 'vpc-id', Values: [vpc] }, { Name: 'default-for-az', Values: ['true'] }],
  })));
  return (out.Subnets ?? []).sort((a, b) => (a.AvailabilityZone ?? '').localeCompare(b.AvailabilityZone ?? ''));
}

async function givenSubnet(clients: FleetClients, subnetId: string): Promise<Subnet> {
  if (!/^subnet-[0-9a-f]{8,17}$/.test(subnetId)) {
    throw new VolbenchError('EINVALID_ARGS', `'${subnetId.slice(0, 40)}' is not a subnet id`, { field: '--subnet', accepted: 'e.g. subnet-0123456789abcdef0' });
  }
  const out = await awsCall('ec2:DescribeSubnets', () => clients.ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] })))
    .catch((err: Error) => {
      throw new VolbenchError('EPREFLIGHT', `--subnet ${subnetId}: ${err.message}; nothing was created`, { field: '--subnet', accepted: 'a subnet of this region', cause: err });
    });
  const subnet = out.Subnets?.[0];
  if (!subnet) throw new VolbenchError('EPREFLIGHT', `--subnet ${subnetId} is not in this region; nothing was created`, { field: '--subnet', accepted: 'a subnet of this region' });
  return subnet;
}

/** AWS's partition for a region: China and GovCloud have their own ARNs. */
function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The bucket's own KMS key (SSE-KMS with a customer key), as an ARN; undefined for SSE-S3 or aws/s3. */
async function bucketKey(clients: FleetClients, input: PreflightInput): Promise<string | undefined> {
  let out;
  try {
    out = await clients.s3.send(new GetBucketEncryptionCommand({ Bucket: input.bucket }));
  } catch (err) {
    if (/ServerSideEncryptionConfigurationNotFound/.test((err as Error).name)) return undefined;
    throw new VolbenchError('EPREFLIGHT', `--bucket ${input.bucket}: ${(err as Error).message}; nothing was created`, { field: '--bucket', accepted: 'a bucket in this account you may read and write', cause: err });
  }
  for (const rule of out.ServerSideEncryptionConfiguration?.Rules ?? []) {
    const by = rule.ApplyServerSideEncryptionByDefault;
    if (!by?.SSEAlgorithm?.startsWith('aws:kms') || !by.KMSMasterKeyID) continue;
    const key = by.KMSMasterKeyID;
    // A key ARN only: an alias ARN fails the template's pattern, and kms:Decrypt on an alias grants nothing.
    if (/^arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$/.test(key)) return key;
    if (/^[0-9a-f-]{36}$/.test(key) && input.accountId) return `arn:${partitionOf(input.region)}:kms:${input.region}:${input.accountId}:key/${key}`;
    throw new VolbenchError('EPREFLIGHT', `--bucket ${input.bucket} encrypts with KMS key '${key.slice(0, 80)}', which cannot be named as a key ARN; nothing was created`, {
      field: '--bucket', accepted: 'a bucket whose default encryption names its KMS key by key ARN or key id (not an alias), or SSE-S3',
    });
  }
  return undefined;
}

export async function preflight(input: PreflightInput): Promise<Preflight> {
  const { clients, instanceType } = input;
  const zones = await offeredZones(clients, instanceType);
  if (zones.size === 0) {
    throw new VolbenchError('EPREFLIGHT', `${input.region} offers no ${instanceType} in any zone; nothing was created`, { field: '--instance', accepted: 'a type this region offers (aws ec2 describe-instance-type-offerings)' });
  }
  let subnet: Subnet;
  if (input.subnetId) {
    subnet = await givenSubnet(clients, input.subnetId);
    if (!zones.has(subnet.AvailabilityZone ?? '')) {
      throw new VolbenchError('EPREFLIGHT', `--subnet ${input.subnetId} is in ${subnet.AvailabilityZone}, which offers no ${instanceType} (${[...zones].sort().join(', ')} do); nothing was created`, {
        field: '--subnet', accepted: `a subnet in ${[...zones].sort().join(', ')}`,
      });
    }
  } else {
    const candidates = await defaultSubnets(clients, input.region);
    const fit = candidates.find((s) => zones.has(s.AvailabilityZone ?? ''));
    if (!fit) {
      throw new VolbenchError('EPREFLIGHT', `no default subnet of ${input.region} is in a zone offering ${instanceType} (${[...zones].sort().join(', ')}); give --subnet; nothing was created`, {
        field: '--subnet', accepted: `a subnet in ${[...zones].sort().join(', ')}`,
      });
    }
    subnet = fit;
  }
  // Without a public address, an internet gateway is no route out: the subnet is read as one that maps none.
  const publicAddress = subnet.MapPublicIpOnLaunch === true && !input.noPublicIp;
  const network = await checkPrivateSubnet(clients, { ...subnet, MapPublicIpOnLaunch: publicAddress }, input.region, input.mode ?? 'interactive');
  const kmsKeyArn = await bucketKey(clients, input);
  return {
    subnetId: subnet.SubnetId!,
    vpcId: subnet.VpcId!,
    availabilityZone: subnet.AvailabilityZone!,
    publicAddress,
    ...(kmsKeyArn ? { kmsKeyArn } : {}),
    routeOut: network.routeOut,
    ...(network.notes.length ? { notes: network.notes } : {}),
  };
}
