/**
 * Service Quotas on a loopback port, for what moto does not serve (moto 5.2.5 knows VPC quotas
 * only, with values that cannot be set): an HTTP server speaking the service's JSON protocol
 * (AWS JSON 1.1, `X-Amz-Target: ServiceQuotasV20190624.<Operation>`) with the quotas a test gives
 * it. It answers GetServiceQuota with a quota's applied value, GetAWSDefaultServiceQuota with its
 * default, NoSuchResourceException for a quota it does not hold, and AccessDeniedException for
 * everything when it plays an account whose SCP denies Service Quotas. The real SDK client talks
 * to it through AWS_ENDPOINT_URL_SERVICE_QUOTAS; every request it takes is kept, with the
 * signature's scope, so a test can see what was asked and that it was signed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface QuotaValue {
  /** The applied value; absent: the quota was never raised, and only its default answers. */
  applied?: number;
  default: number;
  name?: string;
}

export interface ServiceQuotasOptions {
  /** By `SERVICE/CODE` (`ec2/L-1216C47A`). */
  quotas: Record<string, QuotaValue>;
  /** Every call refused, as an SCP or a missing servicequotas: grant refuses it. */
  denied?: boolean;
  region?: string;
  account?: string;
}

export interface ServiceQuotasRequest {
  operation: string;
  body: Record<string, unknown>;
  /** The SigV4 credential scope's service, as the client signed it. */
  signedFor?: string;
}

export interface ServiceQuotasServer {
  endpoint: string;
  requests: ServiceQuotasRequest[];
  close(): Promise<void>;
}

const PREFIX = 'ServiceQuotasV20190624.';

function reply(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, type: string, message: string): void {
  reply(res, status, { __type: type, message }, type);
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startServiceQuotas(opts: ServiceQuotasOptions): Promise<ServiceQuotasServer> {
  const region = opts.region ?? 'us-east-1';
  const account = opts.account ?? '123456789012';
  const requests: ServiceQuotasRequest[] = [];
  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const text = await bodyOf(req);
    const signedFor = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (req.method !== 'POST' || !target.startsWith(PREFIX)) return fail(res, 400, 'UnknownOperationException', `not a Service Quotas call: ${req.method} ${target}`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text || '{}') as Record<string, unknown>;
    } catch {
      return fail(res, 400, 'SerializationException', 'the body is not JSON');
    }
    const operation = target.slice(PREFIX.length);
    requests.push({ operation, body, ...(signedFor ? { signedFor } : {}) });
    if (!signedFor) return fail(res, 403, 'MissingAuthenticationTokenException', 'the request is not signed');
    if (opts.denied) return fail(res, 400, 'AccessDeniedException', `User: arn:aws:iam::${account}:user/tester is not authorized to perform: servicequotas:${operation} with an explicit deny in a service control policy`);
    if (operation !== 'GetServiceQuota' && operation !== 'GetAWSDefaultServiceQuota') return fail(res, 400, 'UnknownOperationException', `${operation} is not served here`);
    const { ServiceCode: service, QuotaCode: code } = body as { ServiceCode?: string; QuotaCode?: string };
    const q = opts.quotas[`${service}/${code}`];
    const value = operation === 'GetServiceQuota' ? q?.applied : q?.default;
    if (!q || value === undefined) return fail(res, 400, 'NoSuchResourceException', `The request failed because the specified quota ${service}/${code} does not exist.`);
    reply(res, 200, {
      Quota: {
        ServiceCode: service, QuotaCode: code, QuotaName: q.name ?? code, Value: value, Unit: 'None', Adjustable: true, GlobalQuota: false,
        QuotaArn: `arn:aws:servicequotas:${region}:${account}:${service}/${code}`,
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
