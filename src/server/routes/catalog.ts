/**
 * GET /v1/catalog: the volume types the service knows (limits, burst models, prices per region,
 * each with its source and date) and the instance types' EBS limits. GET
 * /v1/catalog/{provider}/{type}?size=...: one volume's monthly price and what it should deliver
 * at an I/O size, as `volbench catalog price` and `entitled` print them.
 */
import { z } from 'zod';

import {
  checkPlacement, directionOf, entitlement, loadCatalog, loadInstances, priceVolume, volumeFromSettingsText, volumeType,
} from '../../cloud/index.js';
import { InstanceType, ProviderCatalog } from '../../cloud/schema.js';
import { VolbenchError } from '../../errors.js';
import { modelEntitlementSchema } from '../../fio-output/entitlement-section.js';
import { parseSize } from '../../jobspec/index.js';
import { volumeTypeNotFound } from '../problems/service-problems.js';
import { jsonResponse, problemResponse } from '../../api/problem.js';
import { named } from '../../api/registry.js';
import { pathParamResponses, tokenRouteResponses } from './common.js';
import type { RouteDeps, ZodApp } from './types.js';

const SEQUENTIAL = new Set(['read', 'write', 'rw', 'readwrite', 'trim']);
const RW = ['read', 'write', 'rw', 'readwrite', 'randread', 'randwrite', 'randrw'] as const;

const catalogSchema = named('Catalog', z.object({
  providers: z.array(ProviderCatalog).describe('One entry per provider file of the catalog'),
  instances: z.array(InstanceType).describe("EC2 instance types' EBS limits and instance store"),
}).describe('The shipped catalog: every limit and price with its source URL and as_of date'));

const sizeText = z.string().max(32).describe('The volume size, whole GiB in fio units: 500g, 2t');
const count = z.string().max(12).regex(/^\d{1,9}$/, 'a whole number');

const volumeQuery = z.strictObject({
  size: sizeText.optional().describe('The volume size, whole GiB in fio units: 500g, 2t (required but for instance-store)'),
  iops: count.optional().describe('Provisioned IOPS, where the type takes them'),
  throughput: count.optional().describe('Provisioned throughput in MiB/s, where the type takes it'),
  region: z.string().max(32).optional().describe("Region of the price (default: the provider's, us-east-1, us-central1 or eastus)"),
  instance: z.string().max(32).optional().describe('The EC2 instance type the volume is attached to: its EBS limits bound the volume; instance-store needs one'),
  bs: z.string().max(16).optional().describe('The I/O size of the entitlement (default 4k)'),
  rw: z.enum(RW).optional().describe('The pattern: sequential I/O may merge (default randread, read from 1m)'),
});

const volumeAnswer = named('CatalogVolume', z.object({
  provider: z.string(),
  volume: z.object({
    type: z.string(),
    size_gib: z.number(),
    iops: z.number().optional(),
    throughput_mibps: z.number().optional(),
  }),
  price: z.object({
    region: z.string(), currency: z.literal('USD'), tier: z.string().optional().describe('The size tier billed (Azure: P10)'),
    storage: z.number(), iops: z.number(), throughput: z.number(),
    total: z.number().describe('USD a month'), source: z.string(), as_of: z.string(),
  }).nullable().describe('null where the catalog has no price for the type in the region'),
  entitlement: z.object({
    bs: z.number().int(),
    rw: z.string(),
    instance: z.string().optional(),
    ...modelEntitlementSchema.shape,
  }).describe("The model's answer for I/O of bs in mode rw, in the shape a result's entitlement has"),
}).describe("One volume's monthly price and what it should deliver"));

const QUERY_FIELDS = { type: 'type', size: 'query.size', iops: 'query.iops', throughput: 'query.throughput', suite: 'query' };

export function registerCatalogRoutes(app: ZodApp, _deps: RouteDeps): void {
  app.get('/v1/catalog', {
    schema: {
      summary: 'Volume types, their limits and prices, and instance types',
      tags: ['catalog'],
      response: { 200: jsonResponse('The catalog', catalogSchema), ...tokenRouteResponses },
    },
  }, async () => ({ providers: loadCatalog(), instances: loadInstances() }));

  app.get('/v1/catalog/:provider/:type', {
    schema: {
      summary: "One volume's price and entitlement",
      tags: ['catalog'],
      params: z.object({ provider: z.string().describe('aws, gcp or azure'), type: z.string().describe('Volume type: gp3, io2, pd-ssd, hyperdisk-balanced, premium-ssd, instance-store, ...') }),
      querystring: volumeQuery,
      response: {
        200: jsonResponse('The volume priced and entitled', volumeAnswer),
        ...pathParamResponses,
        ...tokenRouteResponses,
        400: problemResponse('A size, IOPS or throughput the type does not allow, an unknown region or instance, or a bad bs'),
        404: problemResponse('No such provider or volume type'),
      },
    },
  }, async (request) => {
    const { provider, type } = request.params;
    const q = request.query;
    let found;
    try {
      found = volumeType(type);
    } catch (err) {
      if (err instanceof VolbenchError) throw volumeTypeNotFound(err.message, err.accepted);
      throw err;
    }
    if (found.provider !== provider) throw volumeTypeNotFound(`${type} is one of ${found.provider}'s volume types, not ${provider}'s`, found.provider);
    const spec = volumeFromSettingsText(found.type, q, QUERY_FIELDS, 'query');
    checkPlacement(spec, q.instance, 'query.instance', 'query.size');
    const bs = parseSize(q.bs ?? '4k', { field: 'query.bs' });
    if (bs === 0 || bs > 1 << 30) throw new VolbenchError('EINVALID_VALUE', `bs is 1 byte to 1 GiB, not '${q.bs}'`, { field: 'query.bs', accepted: 'e.g. 4k, 1m' });
    const rw = q.rw ?? (bs >= 1 << 20 ? 'read' : 'randread');
    const region = q.region ?? found.default_region;
    let price = null;
    if (region !== undefined) {
      try {
        price = priceVolume(spec, region);
      } catch (err) {
        // A region asked for by name and not known is the client's mistake; one defaulted to is not.
        if (q.region !== undefined && err instanceof VolbenchError) {
          throw new VolbenchError('EINVALID_VALUE', err.message, { field: 'query.region', accepted: err.accepted });
        }
        if (!(err instanceof VolbenchError)) throw err;
      }
    }
    const e = entitlement(spec, { bs, sequential: SEQUENTIAL.has(rw), direction: directionOf(rw), instance: q.instance });
    return {
      provider,
      volume: spec.json(),
      price,
      entitlement: {
        bs, rw, ...(q.instance !== undefined ? { instance: q.instance } : {}),
        ...e,
      },
    };
  });
}
