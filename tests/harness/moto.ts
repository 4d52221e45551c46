/**
 * moto server (PyPI `moto[server]`) on a free loopback port: the AWS the rehearsal and the cloud
 * tests talk to, with real AWS SDK v3 calls pointed at it by AWS_ENDPOINT_URL. Whether it can run
 * here is the `moto` requirement's probe (tests/helpers/requires.ts).
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

import {
  AttachInternetGatewayCommand, CreateInternetGatewayCommand, CreateRouteCommand, DescribeInternetGatewaysCommand, DescribeRouteTablesCommand, DescribeVpcsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';

import { freePort } from './fleet/forward.js';

const MOTO_SERVER = join(import.meta.dirname, 'moto-server.py');

export interface Moto {
  endpoint: string;
  /** The environment an SDK client needs to talk to it (fake credentials, the region asked for). */
  env: Record<string, string>;
  /** SIGTERM, then SIGKILL if it has not exited within 3 s. */
  stop(): Promise<void>;
}

/** `logFile`: where moto's own log goes whole (each request, each traceback), for a run that must be read after. */
export async function startMoto(region = 'us-east-1', { logFile }: { logFile?: string } = {}): Promise<Moto> {
  const port = await freePort();
  // moto's own server, with the one EC2 call preflight makes that it lacks (moto-server.py).
  const child = spawn('python3', [MOTO_SERVER, '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const log = logFile ? createWriteStream(logFile) : undefined;
  child.once('exit', () => log?.end());
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
    log?.write(d);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto server exited (${child.exitCode}): ${stderr}`);
    try {
      if ((await fetch(`${endpoint}/moto-api/`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto server did not answer on ${endpoint}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL: endpoint, AWS_REGION: region, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * The region's default VPC as AWS makes it: moto's has no internet gateway and no 0.0.0.0/0
 * route, where every AWS default VPC has both (its subnets give public addresses and reach the
 * internet). Preflight reads the route (a subnet with none needs VPC endpoints): a fleet test on
 * the default VPC gets it first. Answers the gateway's id (the one there already, if any).
 */
export async function awsDefaultVpc(moto: Pick<Moto, 'endpoint' | 'env'>, region = moto.env.AWS_REGION): Promise<string | undefined> {
  const ec2 = new EC2Client({ region, endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  try {
    const vpc = (await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }))).Vpcs?.[0]?.VpcId;
    if (!vpc) return undefined;
    const attached = (await ec2.send(new DescribeInternetGatewaysCommand({ Filters: [{ Name: 'attachment.vpc-id', Values: [vpc] }] }))).InternetGateways?.[0];
    const igw = attached?.InternetGatewayId ?? (await ec2.send(new CreateInternetGatewayCommand({}))).InternetGateway!.InternetGatewayId!;
    if (!attached) await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpc }));
    const main = (await ec2.send(new DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }, { Name: 'association.main', Values: ['true'] }] }))).RouteTables?.[0];
    if (main && !(main.Routes ?? []).some((r) => r.DestinationCidrBlock === '0.0.0.0/0')) {
      await ec2.send(new CreateRouteCommand({ RouteTableId: main.RouteTableId, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }));
    }
    return igw;
  } finally {
    ec2.destroy();
  }
}
