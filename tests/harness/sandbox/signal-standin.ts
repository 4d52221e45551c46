// CloudFormation's resource signal, which moto lacks: an HTTP endpoint in front of moto that
// forwards every request to it unchanged, except cloudformation:SignalResource, which it answers
// as CloudFormation does (after checking the stack exists in moto and, where its template has
// creation policies, that the resource is one of them) and records per stack and resource:
// status, unique id and the reason CloudFormation would show ("Received FAILURE signal with
// UniqueId ..."). One stand-in serves several listeners (one per member's network, one on
// loopback for the fleet code); each knows which member it serves. The records are read in
// process (signals(), waitForSignal()) or over HTTP: GET /__rehearsal/signals[?stack=NAME].
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { signalledResources } from './cfn-template.js';

export interface SignalRecord {
  at: string;
  /** The member whose listener took the call (null: a listener for no member). */
  member: string | null;
  /** The stack as the call named it, and its id in moto. */
  stack: string;
  stackId: string;
  resource: string;
  status: 'SUCCESS' | 'FAILURE';
  uniqueId: string;
  /** What CloudFormation would show: "Received FAILURE signal with UniqueId ...". */
  reason: string;
}
export interface Listener { url: string; port: number; close(): Promise<void> }
export interface SignalStandInOptions { moto: string; holdCreation?: RegExp }
/** A SignalResource call's parameters, as sent (checked by validate()). */
type SignalParams = Record<string, string | undefined>;

/** Form-encoded API calls are read whole (a CreateStack with its template stays far below this). */
const MAX_FORM_BYTES = 8 * 1024 * 1024;
const CFN_NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

const xmlEscape = (s: unknown) => String(s).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const xmlUnescape = (s: string) => s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
  if (e[0] === '#') return String.fromCodePoint(e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  return NAMED[e] ?? whole;
});

function errorXml(code: string, message: string): string {
  return `<ErrorResponse xmlns="${CFN_NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
}

/** The request's parameters when it is a CloudFormation SignalResource call, else undefined. */
function signalParams(req: IncomingMessage, body: Buffer): SignalParams | undefined {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const p = new URLSearchParams(body.toString('utf8'));
    return p.get('Action') === 'SignalResource' ? Object.fromEntries(p) : undefined;
  }
  // The JSON protocol newer SDKs may speak: X-Amz-Target names the operation.
  if (String(req.headers['x-amz-target'] ?? '').endsWith('.SignalResource')) {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return {};
    }
  }
  return undefined;
}

function isDescribeStacks(req: IncomingMessage, body: Buffer): boolean {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return false;
  return new URLSearchParams(body.toString('utf8')).get('Action') === 'DescribeStacks';
}

function validate(p: SignalParams): string | undefined {
  if (!p.StackName || p.StackName.length > 2048) return 'StackName: the stack name or id is required';
  if (!p.LogicalResourceId || p.LogicalResourceId.length > 255) return 'LogicalResourceId: the resource is required';
  if (!p.UniqueId || p.UniqueId.length > 64) return 'UniqueId: 1 to 64 characters are required';
  if (p.Status !== 'SUCCESS' && p.Status !== 'FAILURE') return `Status: SUCCESS or FAILURE, not '${String(p.Status).slice(0, 32)}'`;
  return undefined;
}

export class SignalStandIn {
  readonly moto: URL;
  readonly holdCreation: RegExp | undefined;
  private readonly records: SignalRecord[];
  private servers: Server[];
  private readonly waiters: Set<() => void>;
  /** Each stack's resources with a creation policy (from its template in moto), by stack id. */
  private readonly policies = new Map<string, Promise<string[]>>();

  /**
   * moto: the emulator's base URL (http://127.0.0.1:PORT). holdCreation: a RegExp of stack names
   * whose creation waits for the signal of the resource that holds their creation policy, as
   * CloudFormation makes it (moto completes them at once): DescribeStacks answers
   * CREATE_IN_PROGRESS until a SUCCESS, CREATE_FAILED with the signal's reason after a FAILURE.
   */
  constructor({ moto, holdCreation = undefined }: SignalStandInOptions) {
    this.moto = new URL(moto);
    this.holdCreation = holdCreation;
    this.records = [];
    this.servers = [];
    this.waiters = new Set();
  }

  /**
   * A listener on host:port (0: any) for `member` (a label recorded with its signals); answers
   * { url, port, close() }.
   */
  async listen(host: string, { port = 0, member = null }: { port?: number; member?: string | null } = {}): Promise<Listener> {
    const server = createServer((req, res) => this.handle(req, res, member));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    this.servers.push(server);
    const bound = (server.address() as AddressInfo).port;
    return {
      url: `http://${host}:${bound}`,
      port: bound,
      close: () => new Promise<void>((resolve) => {
        this.servers = this.servers.filter((s) => s !== server);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    };
  }

  /** Every signal so far (optionally of one stack, by name or id). */
  signals(stack?: string): SignalRecord[] {
    return this.records.filter((r) => stack === undefined || r.stack === stack || r.stackId === stack);
  }

  /**
   * What CloudFormation does when a creation policy's timeout passes with no signal: the stack
   * fails (`why` says what the rehearsal saw: a member that never booted). Recorded as a FAILURE
   * of the stack's policy resource, unless a signal came first.
   */
  async fail(stack: string, why: string): Promise<SignalRecord | undefined> {
    const stackId = await this.stackId(stack);
    if (!stackId) return undefined;
    const [resource] = await this.policyResources(stackId);
    const earlier = this.records.find((r) => (r.stack === stack || r.stackId === stackId) && r.resource === resource);
    if (!resource || earlier) return earlier;
    const record: SignalRecord = {
      at: new Date().toISOString(), member: null, stack, stackId, resource, status: 'FAILURE', uniqueId: 'timeout',
      reason: `Failed to receive 1 resource signal(s) within the specified duration (the rehearsal: ${why})`,
    };
    this.records.push(record);
    for (const w of [...this.waiters]) w();
    return record;
  }

  /** The first signal of stack/resource to come (or already come), or undefined after timeoutMs. */
  waitForSignal(stack: string, resource: string, timeoutMs: number): Promise<SignalRecord | undefined> {
    const found = () => this.records.find((r) => (r.stack === stack || r.stackId === stack) && r.resource === resource);
    const now = found();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter = (): void => {
        const hit = found();
        if (!hit) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    })));
  }

  handle(req: IncomingMessage, res: ServerResponse, member: string | null): void {
    if (req.method === 'GET' && req.url?.startsWith('/__rehearsal/signals')) {
      const stack = new URL(req.url, 'http://x').searchParams.get('stack') ?? undefined;
      const body = JSON.stringify({ signals: this.signals(stack) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const formLike = req.method === 'POST' && (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') || req.headers['x-amz-target'] !== undefined);
    if (!formLike) {
      this.forward(req, res, undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_FORM_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_FORM_BYTES) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end(`a form-encoded request over ${MAX_FORM_BYTES} bytes`);
        return;
      }
      const body = Buffer.concat(chunks);
      const params = signalParams(req, body);
      if (params) this.signal(params, member, res).catch((err) => res.writeHead(500).end(String(err)));
      else if (this.holdCreation && isDescribeStacks(req, body)) this.forward(req, res, body, (xml: string) => this.held(xml));
      else this.forward(req, res, body);
    });
  }

  async signal(p: SignalParams, member: string | null, res: ServerResponse): Promise<void> {
    const invalid = validate(p);
    if (invalid) {
      res.writeHead(400, { 'content-type': 'text/xml' }).end(errorXml('ValidationError', invalid));
      return;
    }
    const stackId = await this.stackId(p.StackName!);
    if (!stackId) {
      res.writeHead(400, { 'content-type': 'text/xml' }).end(errorXml('ValidationError', `Stack with id ${p.StackName} does not exist`));
      return;
    }
    // A stack that waits on creation policies takes signals for those resources only (a test's
    // marker stack, which waits on none, takes any: a record).
    const waiting = await this.policyResources(stackId);
    if (waiting.length && !waiting.includes(p.LogicalResourceId!)) {
      res.writeHead(400, { 'content-type': 'text/xml' }).end(errorXml('ValidationError',
        `Resource ${p.LogicalResourceId} of stack ${p.StackName} is not waiting for a signal (${waiting.join(', ')} ${waiting.length === 1 ? 'is' : 'are'})`));
      return;
    }
    const record: SignalRecord = {
      at: new Date().toISOString(), member, stack: p.StackName!, stackId, resource: p.LogicalResourceId!,
      status: p.Status as SignalRecord['status'], uniqueId: p.UniqueId!, reason: `Received ${p.Status} signal with UniqueId ${p.UniqueId}`,
    };
    this.records.push(record);
    for (const w of [...this.waiters]) w();
    res.writeHead(200, { 'content-type': 'text/xml' }).end(
      `<SignalResourceResponse xmlns="${CFN_NS}"><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></SignalResourceResponse>`,
    );
  }

  /** The stack's id in moto (DescribeStacks), or undefined when moto has no such stack. */
  async stackId(name: string): Promise<string | undefined> {
    const { status, text } = await this.motoCall({ Action: 'DescribeStacks', Version: '2010-05-15', StackName: name });
    const id = /<StackId>([^<]+)<\/StackId>/.exec(text)?.[1];
    return status === 200 && id ? id : undefined;
  }

  /** One CloudFormation query call to moto: its status and text. */
  private motoCall(params: Record<string, string>): Promise<{ status: number | undefined; text: string }> {
    const body = new URLSearchParams(params).toString();
    return new Promise((resolve, reject) => {
      const req = httpRequest(new URL('/', this.moto), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), authorization: 'AWS4-HMAC-SHA256 Credential=rehearsal/20260101/us-east-1/cloudformation/aws4_request' },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.once('error', reject);
      req.end(body);
    });
  }

  /** The stack's resources that hold a creation policy, from its template as moto keeps it (asked once per stack). */
  policyResources(stackId: string): Promise<string[]> {
    let found = this.policies.get(stackId);
    if (!found) {
      found = this.motoCall({ Action: 'GetTemplate', Version: '2010-05-15', StackName: stackId }).then(({ status, text }) => {
        const body = /<TemplateBody>([\s\S]*)<\/TemplateBody>/.exec(text)?.[1];
        return status === 200 && body !== undefined ? signalledResources(xmlUnescape(body)) : [];
      }).catch(() => []);
      this.policies.set(stackId, found);
    }
    return found;
  }

  /** A DescribeStacks answer with each held stack's status as CloudFormation would show it. */
  async held(xml: string): Promise<string> {
    // The fleet (and the SDK's waiter) asks for one stack by name: its answer holds one stack.
    const names = [...xml.matchAll(/<StackName>([^<]+)<\/StackName>/g)].map((m) => m[1]);
    const ids = [...xml.matchAll(/<StackId>([^<]+)<\/StackId>/g)].map((m) => m[1]);
    if (names.length !== 1 || ids.length !== 1 || !this.holdCreation!.test(names[0])) return xml;
    if (!xml.includes('<StackStatus>CREATE_COMPLETE</StackStatus>')) return xml;
    const waiting = await this.policyResources(ids[0]);
    if (waiting.length === 0) return xml;
    const signal = this.records.find((r) => (r.stack === names[0] || r.stackId === ids[0]) && waiting.includes(r.resource));
    if (signal?.status === 'SUCCESS') return xml;
    const status = signal ? 'CREATE_FAILED' : 'CREATE_IN_PROGRESS';
    let out = xml.replace('<StackStatus>CREATE_COMPLETE</StackStatus>', `<StackStatus>${status}</StackStatus>`);
    if (signal) {
      out = out.replace(/<StackStatusReason>[^<]*<\/StackStatusReason>/, '')
        .replace(`<StackStatus>${status}</StackStatus>`, `<StackStatus>${status}</StackStatus><StackStatusReason>${xmlEscape(`${signal.resource}: ${signal.reason}`)}</StackStatusReason>`);
    }
    return out;
  }

  /** Sends the request on to moto as it came (with its body, if already read) and the answer back (through `rewrite`, if given). */
  forward(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, rewrite?: (xml: string) => string | Promise<string>): void {
    const upstream = httpRequest(new URL(req.url ?? '/', this.moto), { method: req.method, headers: req.headers }, (answer) => {
      if (!rewrite || answer.statusCode !== 200) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      let text = '';
      answer.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => {
        Promise.resolve(rewrite(text)).then((rewritten) => {
          const out = Buffer.from(rewritten);
          const headers: OutgoingHttpHeaders = { ...answer.headers, 'content-length': String(out.length) };
          delete headers['transfer-encoding'];
          res.writeHead(200, headers).end(out);
        }, (err: Error) => res.writeHead(502, { 'content-type': 'text/plain' }).end(`the stand-in could not read the answer: ${err.message}`));
      });
    });
    upstream.once('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`the AWS emulator did not answer: ${err.message}`);
    });
    if (body === undefined) req.pipe(upstream);
    else upstream.end(body);
  }
}
