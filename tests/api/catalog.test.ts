/**
 * GET /v1/catalog and GET /v1/catalog/{provider}/{type}: the catalog over HTTP, answering what
 * `volbench catalog price` and `entitled` answer, with the AWS worked examples; a volume the
 * type does not allow is refused naming the query field and the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { entitlement, loadCatalog, loadInstances, priceVolume } from '../../src/cloud/index.js';
import { assertMatchesOpenApi } from './helpers/openapi.js';
import { startServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

describe('catalog routes', () => {
  it('lists every provider file and instance type, with sources and dates', async () => {
    const res = await server.client.get('/v1/catalog');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog', res);
    const body = res.body as { providers: Array<{ provider: string; types: Array<{ type: string; size_gib: { source: string } }> }>; instances: Array<{ type: string }> };
    expect(body.providers.map((p) => p.provider)).toEqual(loadCatalog().map((c) => c.provider));
    expect(body.providers[0].types.map((t) => t.type)).toEqual(expect.arrayContaining(['gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1', 'standard']));
    expect(body.providers.flatMap((p) => p.types).every((t) => /^https:\/\//.test(t.size_gib.source))).toBe(true);
    expect(body.instances).toHaveLength(loadInstances().length);
  });

  it("prices gp3 500 GiB with 6,000 IOPS and 250 MiB/s at AWS's worked example, $60.00", async () => {
    const res = await server.client.get('/v1/catalog/aws/gp3?size=500g&iops=6000&throughput=250&region=us-east-1');
    expect(res.status).toBe(200);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', res);
    expect(res.body.volume).toEqual({ type: 'gp3', size_gib: 500, iops: 6000, throughput_mibps: 250 });
    expect(res.body.price).toMatchObject({ region: 'us-east-1', storage: 40, iops: 15, throughput: 5, total: 60 });
    expect(res.body.entitlement).toMatchObject({ bs: 4096, rw: 'randread', iops: 6000, bound_by: 'volume-iops' });
  });

  it('entitles gp2 100 GiB on m6i.large as the library does, with its burst', async () => {
    const res = await server.client.get('/v1/catalog/aws/gp2?size=100g&instance=m6i.large&bs=4k');
    expect(res.status).toBe(200);
    const e = entitlement({ type: 'gp2', sizeGiB: 100 }, { bs: 4096, sequential: false, instance: 'm6i.large' });
    expect(res.body.entitlement).toMatchObject({ iops: e.iops, bound_by: e.bound_by, instance: 'm6i.large' });
    expect(res.body.entitlement.burst).toMatchObject({ baseline: 300, level: 3000 });
    // The default region's price, from the same catalog.
    expect(res.body.price.total).toBe(priceVolume({ type: 'gp2', sizeGiB: 100 }, 'us-east-1').total);
  });

  it('refuses what the type does not allow, naming the query field; unknown types are 404 with the closest', async () => {
    const tooMany = await server.client.get('/v1/catalog/aws/gp3?size=10g&iops=20000');
    expect(tooMany.status).toBe(400);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', tooMany);
    expect(tooMany.body).toMatchObject({ field: 'query.iops' });
    expect(tooMany.body.detail).toMatch(/at most 500 IOPS per GiB/);
    const size = await server.client.get('/v1/catalog/aws/gp3?size=1500m');
    expect(size.status).toBe(400);
    expect(size.body.field).toBe('query.size');
    const region = await server.client.get('/v1/catalog/aws/gp3?size=100g&region=us-east-9');
    expect(region.status).toBe(400);
    expect(region.body.field).toBe('query.region');
    const instance = await server.client.get('/v1/catalog/aws/gp3?size=100g&instance=m6i.largee');
    expect(instance.status).toBe(400);
    expect(instance.body).toMatchObject({ field: 'query.instance' });
    expect(instance.body.detail).toContain("did you mean 'm6i.large'");
    const missing = await server.client.get('/v1/catalog/aws/gp3');
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('query.size');
    const unknown = await server.client.get('/v1/catalog/aws/gp4?size=100g');
    expect(unknown.status).toBe(404);
    assertMatchesOpenApi('GET', '/v1/catalog/{provider}/{type}', unknown);
    expect(unknown.body.detail).toContain("did you mean 'gp3'");
    const provider = await server.client.get('/v1/catalog/gcp/gp3?size=100g');
    expect(provider.status).toBe(404);
  });
});
