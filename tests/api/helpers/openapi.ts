/**
 * Checks real responses against the committed openapi.yaml: the operation's response for the
 * status and content type must exist, and a JSON body must validate against its schema.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

import type { ApiResponse } from './server.js';

export const OPENAPI_PATH = fileURLToPath(new URL('../../../openapi.yaml', import.meta.url));

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
};

let cached: { doc: Doc; ajv: Ajv2020 } | null = null;

function load(): { doc: Doc; ajv: Ajv2020 } {
  if (cached) return cached;
  const doc = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The document's own components are the target of every $ref ("#/components/schemas/X").
  ajv.addSchema({ components: doc.components }, 'openapi.json');
  cached = { doc, ajv };
  return cached;
}

function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [k, `openapi.json${v}`] : [k, rewriteRefs(v)]));
}

/** Throws when the response is not one the document describes for this operation. */
export function assertMatchesOpenApi(method: string, pathTemplate: string, res: ApiResponse): void {
  const { doc, ajv } = load();
  const operation = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!operation) throw new Error(`openapi.yaml has no ${method} ${pathTemplate}`);
  const response = operation.responses[String(res.status)];
  if (!response) throw new Error(`openapi.yaml has no ${res.status} for ${method} ${pathTemplate}`);
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
  const media = response.content?.[contentType];
  if (!media) throw new Error(`openapi.yaml has no ${contentType} for ${res.status} of ${method} ${pathTemplate}`);
  if (!contentType.endsWith('json')) return;
  const validate = ajv.compile(rewriteRefs(media.schema) as object);
  if (!validate(res.body)) {
    throw new Error(`${method} ${pathTemplate} ${res.status} does not match openapi.yaml: ${ajv.errorsText(validate.errors)}`);
  }
}
