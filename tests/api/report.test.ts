/**
 * GET /v1/runs/{id}/report and GET /v1/report?run=..: the report of stored runs, the same as
 * `volbench report` makes from files; runs that were cancelled read as such, runs still going
 * are refused until they end. `volbench report --server` gets it from a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { volbench } from '../helpers/cli.js';
import { requires } from '../helpers/requires.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { randreadSpec, startServer, type TestServer } from './helpers/server.js';

const needs = requires('child', 'tmpfs');

let server: TestServer;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startServer();
  for (const name of ['a', 'b']) {
    const res = await server.client.submit(randreadSpec());
    ids[name] = res.body.id;
    await server.client.waitForEnd(res.body.id);
  }
  // A long run, cancelled while it runs (a partial result), and one queued behind it, cancelled
  // before it started (no result at all).
  const long = await server.client.submit(randreadSpec({ runtime: '60s' }));
  ids.running = long.body.id;
  await server.client.waitForStatus(long.body.id, 'running');
  const queued = await server.client.submit(randreadSpec());
  ids.queued = queued.body.id;
});

afterAll(async () => server?.close());

describe('report routes', () => {
  it('refuses a run that has not ended', async () => {
    const res = await server.client.get(`/v1/runs/${ids.running}/report?format=md`);
    expect(res.status).toBe(409);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/report', res);
    const many = await server.client.get(`/v1/report?run=${ids.a}&run=${ids.running}`);
    expect(many.status).toBe(409);
    await server.client.request('DELETE', `/v1/runs/${ids.queued}`);
    await server.client.request('DELETE', `/v1/runs/${ids.running}`);
    await server.client.waitForEnd(ids.running);
  });

  it("serves one run's report in every format", async () => {
    const md = await server.client.get(`/v1/runs/${ids.a}/report?format=md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.text).toContain('## Jobs rr');
    expect(md.text).toContain(`| ${ids.a} |`);
    const csv = await server.client.get(`/v1/runs/${ids.a}/report?format=csv`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.text.split('\r\n')[0]).toMatch(/^Suite,Label,.*rr read IOPS/);
    const json = await server.client.get(`/v1/runs/${ids.a}/report?format=json`);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.body.groups[0].rows[0].cells['rr:read:iops'].value).toBeGreaterThan(0);
    assertMatchesOpenApi('GET', '/v1/runs/{id}/report', json);
    const html = await server.client.get(`/v1/runs/${ids.a}/report?format=html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.text).toContain('<figure class="chart"');
  });

  it('puts several runs side by side, cancelled ones as cancelled, never zeros', async () => {
    const q = [ids.a, ids.b, ids.running, ids.queued].map((id) => `run=${id}`).join('&');
    const res = await server.client.get(`/v1/report?${q}&format=json`);
    expect(res.status).toBe(200);
    expect(res.body.groups).toHaveLength(1);
    const rows = res.body.groups[0].rows;
    // Named by the target they ran on, a short run id added where several ran on the same one
    // (the run cancelled while running has a partial result); a run without a result by its
    // short id; the run id itself is the row's source.
    const short = (id: string): string => id.slice(0, 8);
    expect(rows[0].target_path).toBe(rows[1].target_path);
    expect(rows.map((r: { label: string }) => r.label)).toEqual([
      `${rows[0].target_path} · ${short(ids.a)}`, `${rows[0].target_path} · ${short(ids.b)}`, `${rows[0].target_path} · ${short(ids.running)}`, short(ids.queued),
    ]);
    expect(rows.map((r: { source: string }) => r.source)).toEqual([ids.a, ids.b, ids.running, ids.queued]);
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['finished', 'finished', 'cancelled', 'cancelled']);
    const none = { entitled: null, entitled_merged: null, measured_vs_entitled: null, bound_by: null, bound_by_source: null, flag: null };
    expect(rows[2].cells['rr:read:iops']).toEqual({ value: null, state: 'cancelled', ...none });
    expect(rows[3].cells['rr:read:iops']).toEqual({ value: null, state: 'cancelled', ...none });
    const md = await server.client.get(`/v1/report?${q}&format=md`);
    expect(md.text).toMatch(new RegExp(`\\| ${short(ids.queued)} \\|.*\\| cancelled \\| ${ids.queued} \\|`));
    // ?units= for the human formats; an unknown one, or an unknown ?rank_by=, is refused.
    const mb = await server.client.get(`/v1/report?${q}&format=md&units=MB/s`);
    expect(mb.text).toContain('| rr read MB/s |');
    expect((await server.client.get(`/v1/report?${q}&units=GB/s`)).status).toBe(400);
    expect((await server.client.get(`/v1/report?${q}&rank_by=speed`)).status).toBe(400);
  });

  it('answers problems for unknown runs, no runs, too many and bad formats', async () => {
    expect((await server.client.get('/v1/runs/nope/report')).status).toBe(404);
    expect((await server.client.get(`/v1/report?run=${ids.a}&run=nope`)).status).toBe(404);
    const none = await server.client.get('/v1/report');
    expect(none.status).toBe(400);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
    const many = await server.client.get(`/v1/report?${Array.from({ length: 51 }, () => `run=${ids.a}`).join('&')}`);
    expect(many.status).toBe(400);
    expect((await server.client.get(`/v1/runs/${ids.a}/report?format=pdf`)).status).toBe(400);
    expect((await server.client.withToken(null).get(`/v1/runs/${ids.a}/report`)).status).toBe(401);
  });

  it('volbench report --server gets the same report', async () => {
    const out = await volbench(['report', '--server', server.url, '--run', ids.a, '--run', ids.b, '--token', server.token, '--format', 'csv']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const direct = await server.client.get(`/v1/report?run=${ids.a}&run=${ids.b}&format=csv`);
    expect(out.stdout).toBe(direct.text);
    const refused = await volbench(['report', '--server', server.url, '--run', ids.a, '--token', 'wrong']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('answered 401');
  });
});
