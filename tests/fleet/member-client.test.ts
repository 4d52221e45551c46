/**
 * How the fleet reads a member's service (src/fleet/member-client.ts), against a loopback server:
 * an answer is parsed with the service's contract (src/api), and one that is not the service's
 * fails naming the field; a refusal says the problem's detail; a run's event stream that drops
 * is opened again after the last event seen (Last-Event-ID), up to the final event.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runAcceptedSchema } from '../../src/api/run.js';
import { targetListSchema } from '../../src/api/target.js';
import { MemberClient } from '../../src/fleet/member-client.js';
import { requires } from '../helpers/requires.js';

requires();

let server: Server;
let base = '';
const lastEventIds: Array<string | undefined> = [];

function answer(req: IncomingMessage, res: ServerResponse): void {
  const json = (status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(body));
  };
  if (req.headers.authorization !== 'Bearer t0ken') return json(401, { type: 'urn:volbench:problem:unauthorized', title: 'Unauthorized', status: 401, detail: 'no token' });
  if (req.url === '/v1/targets') return json(200, { targets: [{ root: '/data', kind: 'directory' }] });
  if (req.url === '/v1/runs' && req.method === 'POST') {
    return json(422, { type: 'urn:volbench:problem:limit', title: 'Over a limit', status: 422, detail: 'runtime 2h is over --max-runtime 10m' }, 'application/problem+json');
  }
  if (req.url === '/v1/runs/r1/events') {
    const last = req.headers['last-event-id'] as string | undefined;
    lastEventIds.push(last);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // The first connection drops after two events; the second resumes after the last one seen.
    if (last === undefined) return void res.end('id: 1\nevent: started\ndata: {}\n\nid: 2\nevent: progress\ndata: {"stage":0}\n\n');
    return void res.end('id: 3\nevent: finished\ndata: {"gate":null}\n\n');
  }
  json(404, {});
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a member client', () => {
  it('refuses an answer that is not the contract\'s, naming the field', async () => {
    const client = new MemberClient(base, 't0ken');
    await expect(client.call('GET /v1/targets', '/v1/targets', targetListSchema)).rejects.toThrow(/^GET \/v1\/targets: not the service's answer \(targets\.0\.allow_block_write: /);
  });

  it('says the status and the problem\'s detail of a refusal', async () => {
    const client = new MemberClient(base, 't0ken');
    await expect(client.call('POST /v1/runs', '/v1/runs', runAcceptedSchema, { body: { jobs: [] }, ok: [200, 202] }))
      .rejects.toThrow('POST /v1/runs: HTTP 422: runtime 2h is over --max-runtime 10m');
    await expect(new MemberClient(base, 'wrong').call('GET /v1/targets', '/v1/targets', targetListSchema)).rejects.toThrow('HTTP 401: no token');
  });

  it('follows a run\'s events across a dropped stream, resuming after the last event seen', async () => {
    const seen: string[] = [];
    const final = await new MemberClient(base, 't0ken').follow('r1', (type) => seen.push(type), 3);
    expect(final).toBe('finished');
    expect(seen).toEqual(['started', 'progress', 'finished']);
    expect(lastEventIds.slice(-2)).toEqual([undefined, '2']);
  });
});
