/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas (the library's own spec
 * schema included), served at /v1/openapi.json with a docs page at /v1/docs whose assets are
 * served by this server (nothing from a CDN). `npm run openapi` writes it to openapi.yaml.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';

import { VERSION } from '../../version.js';
import { apiSchemas } from '../../api/registry.js';

type Transform = ReturnType<typeof createJsonSchemaTransform>;
type TransformInput = Parameters<Transform>[0];

const zodTransform = createJsonSchemaTransform({ schemaRegistry: apiSchemas });

/**
 * The zod transform converts a body that is one schema; POST /v1/runs has one per content type
 * (JSON spec, fio job file). Each is converted on its own and put back under `content`.
 */
const transform: Transform = (input) => {
  const body = (input.schema as { body?: unknown } | undefined)?.body as { content?: Record<string, { schema: unknown }> } | undefined;
  if (!body?.content) return zodTransform(input);
  const content: Record<string, { schema: unknown }> = {};
  for (const [type, { schema }] of Object.entries(body.content)) {
    const one = zodTransform({ ...input, schema: { body: schema } } as TransformInput);
    content[type] = { schema: (one.schema as { body: unknown }).body };
  }
  const rest = zodTransform({ ...input, schema: { ...input.schema, body: undefined } } as TransformInput);
  return { ...rest, schema: { ...rest.schema, body: { content } } };
};

const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: apiSchemas });

type OpenApiDocument = ReturnType<typeof zodTransformObject>;

function refsIn(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.add(v.replace('#/components/schemas/', ''));
      else refsIn(v, out);
    }
  }
  return out;
}

/**
 * The transform emits an input and an output variant of every named schema; keep only those
 * the paths reach (directly or through other schemas), so the document lists what is used.
 */
function withoutUnusedSchemas(doc: OpenApiDocument): OpenApiDocument {
  const components = (doc as { components?: { schemas?: Record<string, unknown> } }).components ?? {};
  const schemas = components.schemas ?? {};
  const used = refsIn(doc.paths, new Set());
  for (const pending = [...used]; pending.length > 0;) {
    for (const ref of refsIn(schemas[pending.pop()!], new Set())) {
      if (!used.has(ref)) {
        used.add(ref);
        pending.push(ref);
      }
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...doc, components: { ...components, schemas: kept } } as OpenApiDocument;
}

const DESCRIPTION =
  "Runs fio-style storage benchmarks and answers in fio 3.33's JSON. Submit a spec (JSON), a fio job " +
  'file (text/plain) or a shipped suite, with assertions that gate a pipeline on the numbers; follow its progress ' +
  'as Server-Sent Events, fetch the result in json, json+ or normal. ' +
  'Every route but /v1/healthz needs Authorization: Bearer <token>.';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'volbench', version: VERSION, description: DESCRIPTION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      tags: [
        { name: 'runs', description: 'Benchmark runs' },
        { name: 'suites', description: 'Shipped suites: fio job files run test by test, with loops' },
        { name: 'targets', description: 'Where runs may do I/O' },
        { name: 'service', description: 'Health and metrics' },
      ],
    },
    transform,
    transformObject: (input) => withoutUnusedSchemas(zodTransformObject(input)),
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', uiConfig: { deepLinking: false }, staticCSP: true });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
