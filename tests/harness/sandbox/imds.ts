// The instance metadata service a member sees at 169.254.169.254, as IMDSv2 with tokens required
// (the template's HttpTokens: required): PUT /latest/api/token for a token, every GET with it.
// It answers what boot scripts, the AWS CLI and SDKs read: instance id and type, placement,
// the role's credentials (any key works against moto), the identity document and the user data.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_TTL_S = 21600;

export interface ImdsIdentity {
  instanceId: string;
  instanceType: string;
  region: string;
  availabilityZone: string;
  imageId?: string;
  privateIp?: string;
  roleName?: string;
  accountId?: string;
  architecture?: string;
  hostname?: string;
}
export interface Imds {
  url: string;
  port: number;
  requests: { method: string | undefined; path: string; status: number }[];
  close(): Promise<void>;
}
export interface ImdsOptions { host: string; port?: number; identity: ImdsIdentity; userData?: string }
/** The identity with every default filled in: what the service answers. */
interface Answers extends Required<Omit<ImdsIdentity, 'architecture'>> {
  architecture?: string;
  mac: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string };
}

/** The answer to a meta-data path, or undefined (404). */
function metaData(path: string, m: Answers): string | undefined {
  const creds = JSON.stringify({
    Code: 'Success', LastUpdated: new Date().toISOString(), Type: 'AWS-HMAC',
    AccessKeyId: m.credentials.accessKeyId, SecretAccessKey: m.credentials.secretAccessKey, Token: m.credentials.sessionToken,
    Expiration: new Date(Date.now() + 6 * 3600_000).toISOString(),
  });
  const table: Record<string, string> = {
    '': 'ami-id\nhostname\niam/\ninstance-id\ninstance-type\nlocal-hostname\nlocal-ipv4\nmac\nplacement/',
    'ami-id': m.imageId,
    'instance-id': m.instanceId,
    'instance-type': m.instanceType,
    hostname: m.hostname,
    'local-hostname': m.hostname,
    'local-ipv4': m.privateIp,
    mac: m.mac,
    'placement/': 'availability-zone\nregion',
    'placement/availability-zone': m.availabilityZone,
    'placement/region': m.region,
    'iam/': 'info\nsecurity-credentials/',
    'iam/info': JSON.stringify({ Code: 'Success', LastUpdated: new Date().toISOString(), InstanceProfileArn: `arn:aws:iam::${m.accountId}:instance-profile/${m.roleName}`, InstanceProfileId: 'AIPAREHEARSAL' }),
    'iam/security-credentials/': m.roleName,
    [`iam/security-credentials/${m.roleName}`]: creds,
  };
  return table[path.replace(/^\/+/, '')];
}

/**
 * Starts the service on host:port (port 0: any). identity: { instanceId, instanceType, region,
 * availabilityZone, imageId?, privateIp?, roleName?, accountId? }; userData: the script text.
 * Answers { url, port, requests, close() }; requests lists every request (method, path, status).
 */
export async function startImds({ host, port = 0, identity, userData = '' }: ImdsOptions): Promise<Imds> {
  const m = {
    imageId: 'ami-0rehearsal0000000', privateIp: host, roleName: 'volbench-member', accountId: '123456789012',
    mac: '0e:00:00:00:00:01', credentials: { accessKeyId: 'ASIAREHEARSAL', secretAccessKey: 'rehearsal', sessionToken: 'rehearsal-session' },
    ...identity,
  } as Answers;
  m.hostname ??= `ip-${m.privateIp.replace(/\./g, '-')}.ec2.internal`;
  const tokens = new Map<string, number>();
  const requests: Imds['requests'] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://imds');
    const answer = (status: number, body = '', type = 'text/plain') => {
      requests.push({ method: req.method, path: url.pathname, status });
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    req.resume();
    if (url.pathname === '/latest/api/token') {
      if (req.method !== 'PUT') return answer(405);
      // IMDS refuses tokens to requests that went through a proxy.
      if (req.headers['x-forwarded-for'] !== undefined) return answer(403);
      const ttl = Number(req.headers['x-aws-ec2-metadata-token-ttl-seconds']);
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_S) return answer(400);
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, Date.now() + ttl * 1000);
      res.setHeader('x-aws-ec2-metadata-token-ttl-seconds', String(ttl));
      return answer(200, token);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405);
    const token = req.headers['x-aws-ec2-metadata-token'];
    const expiry = typeof token === 'string' ? tokens.get(token) : undefined;
    if (expiry === undefined || expiry < Date.now()) return answer(401);
    if (url.pathname === '/latest/user-data') return userData ? answer(200, userData, 'application/octet-stream') : answer(404);
    if (url.pathname === '/latest/dynamic/instance-identity/document') {
      return answer(200, JSON.stringify({
        accountId: m.accountId, architecture: m.architecture ?? 'x86_64', availabilityZone: m.availabilityZone, imageId: m.imageId,
        instanceId: m.instanceId, instanceType: m.instanceType, privateIp: m.privateIp, region: m.region, version: '2017-09-30',
      }, null, 2), 'application/json');
    }
    if (!url.pathname.startsWith('/latest/meta-data/')) return answer(404);
    const value = metaData(url.pathname.slice('/latest/meta-data/'.length), m);
    return value === undefined ? answer(404) : answer(200, value);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
