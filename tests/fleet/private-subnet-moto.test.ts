/**
 * Preflight of a subnet with no route out, against moto: the members boot there only through VPC
 * endpoints, so what their mode calls must be there before anything is created. An autonomous
 * member needs S3 (a gateway endpoint on the subnet's route table) and CloudFormation (an
 * interface endpoint with private DNS); an interactive one SSM too, and an SSM port forward to it
 * Session Manager's ssmmessages and ec2messages (said, not refused: a VPN needs neither). A subnet
 * with a route out (a NAT gateway, or an internet gateway with public addresses) is not asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AllocateAddressCommand, AssociateRouteTableCommand, CreateInternetGatewayCommand, CreateNatGatewayCommand, CreateRouteCommand, CreateRouteTableCommand,
  CreateSubnetCommand, CreateVpcCommand, CreateVpcEndpointCommand, AttachInternetGatewayCommand, DescribeRouteTablesCommand, EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateBucketCommand } from '@aws-sdk/client-s3';

import { fleetClients, preflight, type FleetClients } from '../../src/fleet/index.js';
import { awsDefaultVpc, freshMoto, type Moto } from '../helpers/moto.js';
import { requires } from '../helpers/requires.js';

const needs = requires('moto');

const reason = needs.missing('moto');
const REGION = 'us-east-1';
const BUCKET = 'volbench-private-subnet';

describe.skipIf(reason !== undefined)(`a subnet with no route out${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let moto: Moto;
  let clients: FleetClients;
  let ec2: EC2Client;
  let cidr = 20;

  /** A VPC of its own with one private subnet; its main route table holds only the local route. */
  async function privateSubnet(): Promise<{ vpc: string; subnet: string; table: string }> {
    const vpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: `10.${cidr}.0.0/16` }))).Vpc!.VpcId!;
    const subnet = (await ec2.send(new CreateSubnetCommand({ VpcId: vpc, CidrBlock: `10.${cidr++}.1.0/24`, AvailabilityZone: `${REGION}a` }))).Subnet!.SubnetId!;
    const main = await ec2.send(new DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }, { Name: 'association.main', Values: ['true'] }] }));
    return { vpc, subnet, table: main.RouteTables![0].RouteTableId! };
  }

  const endpoint = (vpc: string, service: string, extra: Record<string, unknown>) => ec2.send(new CreateVpcEndpointCommand({
    VpcId: vpc, ServiceName: `com.amazonaws.${REGION}.${service}`, ...extra,
  }));
  const gateway = (vpc: string, table: string) => endpoint(vpc, 's3', { VpcEndpointType: 'Gateway', RouteTableIds: [table] });
  const iface = (vpc: string, subnet: string, service: string) => endpoint(vpc, service, { VpcEndpointType: 'Interface', SubnetIds: [subnet], PrivateDnsEnabled: true });
  const check = (subnetId: string, mode: 'interactive' | 'autonomous') => preflight({ clients, region: REGION, instanceType: 'm6i.large', bucket: BUCKET, subnetId, mode });

  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    moto = await freshMoto(REGION);
    // The default chain's credentials, as a user's: moto's fake ones, for this file only.
    for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      saved[key] = process.env[key];
      process.env[key] = moto.env[key];
    }
    clients = fleetClients({ region: REGION, endpoint: moto.endpoint });
    ec2 = clients.ec2;
    await awsDefaultVpc(moto, REGION);
    await clients.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  }, 60_000);

  afterAll(async () => {
    clients?.destroy();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('asks nothing of the default VPC\'s subnets (as AWS makes them): their internet gateway and public addresses are a route out', async () => {
    const where = await preflight({ clients, region: REGION, instanceType: 'm6i.large', bucket: BUCKET, mode: 'autonomous' });
    expect(where).toMatchObject({ publicAddress: true, routeOut: true });
    expect(where.notes).toBeUndefined();
  });

  it('refuses a subnet with no endpoints, naming each one the mode needs', async () => {
    const { subnet } = await privateSubnet();
    await expect(check(subnet, 'autonomous')).rejects.toMatchObject({ code: 'EPREFLIGHT', field: '--subnet' });
    const autonomous = await check(subnet, 'autonomous').catch((err: Error) => err.message);
    expect(autonomous).toMatch(/has no route out/);
    expect(autonomous).toContain(`com.amazonaws.${REGION}.s3 (a gateway endpoint on the subnet's route table)`);
    expect(autonomous).toContain(`com.amazonaws.${REGION}.cloudformation (an interface endpoint with private DNS)`);
    expect(autonomous).not.toContain('.ssm');
    expect(await check(subnet, 'interactive').catch((err: Error) => err.message)).toContain(`com.amazonaws.${REGION}.ssm (an interface endpoint`);
  });

  it('takes S3 and CloudFormation for autonomous members, SSM too for interactive ones, and says what a port forward would still need', async () => {
    const { vpc, subnet, table } = await privateSubnet();
    await gateway(vpc, table);
    await iface(vpc, subnet, 'cloudformation');
    expect(await check(subnet, 'autonomous')).toMatchObject({ routeOut: false });
    expect(await check(subnet, 'interactive').catch((err: Error) => err.message)).toMatch(/lacks what interactive members call: com\.amazonaws\.us-east-1\.ssm /);
    await iface(vpc, subnet, 'ssm');
    const interactive = await check(subnet, 'interactive');
    expect(interactive.notes).toHaveLength(1);
    expect(interactive.notes![0]).toMatch(/an SSM port forward to them needs com\.amazonaws\.us-east-1\.ssmmessages .* and com\.amazonaws\.us-east-1\.ec2messages/);
    await iface(vpc, subnet, 'ssmmessages');
    await iface(vpc, subnet, 'ec2messages');
    expect((await check(subnet, 'interactive')).notes).toBeUndefined();
  });

  it('counts an S3 gateway only on the subnet\'s own route table, and an interface endpoint only with private DNS', async () => {
    const { vpc, subnet, table } = await privateSubnet();
    const own = (await ec2.send(new CreateRouteTableCommand({ VpcId: vpc }))).RouteTable!.RouteTableId!;
    await ec2.send(new AssociateRouteTableCommand({ RouteTableId: own, SubnetId: subnet }));
    await gateway(vpc, table);
    await endpoint(vpc, 'cloudformation', { VpcEndpointType: 'Interface', SubnetIds: [subnet], PrivateDnsEnabled: false });
    const refused = await check(subnet, 'autonomous').catch((err: Error) => err.message);
    expect(refused).toContain(`com.amazonaws.${REGION}.s3`);
    expect(refused).toContain(`com.amazonaws.${REGION}.cloudformation`);
  });

  it('asks nothing of a subnet with a NAT gateway, and takes an internet gateway without public addresses for no route out', async () => {
    const { vpc, subnet, table } = await privateSubnet();
    const igw = (await ec2.send(new CreateInternetGatewayCommand({}))).InternetGateway!.InternetGatewayId!;
    await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpc }));
    await ec2.send(new CreateRouteCommand({ RouteTableId: table, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }));
    expect(await check(subnet, 'autonomous').catch((err: Error) => err.message)).toMatch(/has no route out/);
    const allocation = (await ec2.send(new AllocateAddressCommand({ Domain: 'vpc' }))).AllocationId!;
    const nat = (await ec2.send(new CreateNatGatewayCommand({ SubnetId: subnet, AllocationId: allocation }))).NatGateway!.NatGatewayId!;
    const own = (await ec2.send(new CreateRouteTableCommand({ VpcId: vpc }))).RouteTable!.RouteTableId!;
    await ec2.send(new CreateRouteCommand({ RouteTableId: own, DestinationCidrBlock: '0.0.0.0/0', NatGatewayId: nat }));
    await ec2.send(new AssociateRouteTableCommand({ RouteTableId: own, SubnetId: subnet }));
    expect(await check(subnet, 'autonomous')).toMatchObject({ routeOut: true });
  });
});
