/**
 * What a member in a subnet with no route out needs: VPC endpoints for the AWS APIs its boot and
 * its study call. Without them it boots, cannot reach S3 or CloudFormation, and the study learns
 * why only at the creation policy's timeout; preflight asks first (DescribeRouteTables,
 * DescribeVpcEndpoints) and refuses naming what is missing.
 *
 * A route out is a 0.0.0.0/0 route that is not a blackhole: to a NAT gateway, a transit gateway,
 * an instance or interface (a NAT instance, a firewall), a peering; or to an internet gateway when
 * the subnet gives public addresses (without one, an internet gateway takes nothing out).
 *
 * Every member calls S3 (the bundle; an autonomous one its spec and its results) and
 * CloudFormation (its one signal). An interactive member also reads its token and TLS key from
 * SSM. Reaching an interactive member through an SSM port forward needs Session Manager's
 * `ssmmessages` (and `ec2messages` for older agents) too, which a VPN does not: said, not refused.
 * No member calls EC2 (its device is found on the instance).
 */
import { DescribeRouteTablesCommand, DescribeVpcEndpointsCommand, type RouteTable, type Subnet, type VpcEndpoint } from '@aws-sdk/client-ec2';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';

export type MemberMode = 'interactive' | 'autonomous';

export interface EndpointCheck {
  /** Whether the subnet has a route out; when it has, nothing else was asked. */
  routeOut: boolean;
  /** The endpoints found that members use, by service (s3, cloudformation, ...). */
  found: string[];
  /** Lines for the user: what a port forward would still need. */
  notes: string[];
}

/** The services a mode's members call, which a subnet with no route out must reach through endpoints. */
export function neededEndpoints(mode: MemberMode): string[] {
  return mode === 'autonomous' ? ['s3', 'cloudformation'] : ['s3', 'cloudformation', 'ssm'];
}

/** The route table the subnet uses: its own association, else its VPC's main one. */
async function routeTableOf(clients: FleetClients, subnet: Subnet): Promise<RouteTable | undefined> {
  const own = await awsCall('ec2:DescribeRouteTables', () => clients.ec2.send(new DescribeRouteTablesCommand({
    Filters: [{ Name: 'association.subnet-id', Values: [subnet.SubnetId!] }],
  })));
  if (own.RouteTables?.[0]) return own.RouteTables[0];
  const main = await awsCall('ec2:DescribeRouteTables', () => clients.ec2.send(new DescribeRouteTablesCommand({
    Filters: [{ Name: 'vpc-id', Values: [subnet.VpcId!] }, { Name: 'association.main', Values: ['true'] }],
  })));
  return main.RouteTables?.[0];
}

function hasRouteOut(table: RouteTable | undefined, publicAddress: boolean): boolean {
  return (table?.Routes ?? []).some((r) => {
    if (r.DestinationCidrBlock !== '0.0.0.0/0' || r.State === 'blackhole') return false;
    if (r.GatewayId?.startsWith('igw-')) return publicAddress;
    return Boolean(r.NatGatewayId || r.TransitGatewayId || r.InstanceId || r.NetworkInterfaceId || r.VpcPeeringConnectionId
      || r.CarrierGatewayId || r.LocalGatewayId || r.CoreNetworkArn);
  });
}

/** The service an endpoint serves (`com.amazonaws.us-east-1.ssm` → `ssm`), in this region. */
function serviceOf(e: VpcEndpoint, region: string): string | undefined {
  const name = e.ServiceName ?? '';
  const marker = `.${region}.`;
  const at = name.indexOf(marker);
  return at < 0 ? undefined : name.slice(at + marker.length);
}

/** Whether an endpoint carries this subnet's calls: a gateway on its route table, an interface with private DNS. */
function serves(e: VpcEndpoint, table: RouteTable | undefined): boolean {
  const state = (e.State ?? '').toLowerCase();
  if (state !== 'available' && state !== 'pending') return false;
  if (e.VpcEndpointType === 'Gateway') return !!table?.RouteTableId && (e.RouteTableIds ?? []).includes(table.RouteTableId);
  return e.PrivateDnsEnabled === true;
}

function describeNeed(service: string, region: string): string {
  return service === 's3' ? `com.amazonaws.${region}.s3 (a gateway endpoint on the subnet's route table)` : `com.amazonaws.${region}.${service} (an interface endpoint with private DNS)`;
}

/**
 * The subnet's way to the APIs its members call: nothing to check with a route out; else the
 * VPC's endpoints, refused (EPREFLIGHT, naming --subnet and each missing endpoint) when one that
 * the mode needs is missing.
 */
export async function checkPrivateSubnet(clients: FleetClients, subnet: Subnet, region: string, mode: MemberMode): Promise<EndpointCheck> {
  const table = await routeTableOf(clients, subnet);
  if (hasRouteOut(table, subnet.MapPublicIpOnLaunch === true)) return { routeOut: true, found: [], notes: [] };
  const endpoints: VpcEndpoint[] = [];
  let NextToken: string | undefined;
  do {
    const page = await awsCall('ec2:DescribeVpcEndpoints', () => clients.ec2.send(new DescribeVpcEndpointsCommand({
      Filters: [{ Name: 'vpc-id', Values: [subnet.VpcId!] }], NextToken,
    })));
    endpoints.push(...(page.VpcEndpoints ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  const found = [...new Set(endpoints.filter((e) => serves(e, table)).map((e) => serviceOf(e, region)).filter((s): s is string => s !== undefined))];
  const missing = neededEndpoints(mode).filter((s) => !found.includes(s));
  if (missing.length) {
    const what = missing.map((s) => describeNeed(s, region));
    throw new VolbenchError('EPREFLIGHT', `--subnet ${subnet.SubnetId} has no route out (no 0.0.0.0/0 to a NAT gateway, or to an internet gateway with public addresses), ` +
      `and its VPC ${subnet.VpcId} lacks what ${mode} members call: ${what.join('; ')}; nothing was created`, {
      field: '--subnet', accepted: `a subnet with a route out, or a VPC with endpoints for ${neededEndpoints(mode).join(', ')}`,
    });
  }
  const notes: string[] = [];
  const forward = ['ssmmessages', 'ec2messages'].filter((s) => !found.includes(s));
  if (mode === 'interactive' && forward.length) {
    notes.push(`--subnet ${subnet.SubnetId} has no route out: its members answer inside the VPC only (a VPN), and an SSM port forward to them ` +
      `needs ${forward.map((s) => describeNeed(s, region)).join(' and ')} too, which its VPC lacks`);
  }
  return { routeOut: false, found, notes };
}
