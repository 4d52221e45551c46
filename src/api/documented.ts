/**
 * The library's result schemas (src/fio-output/fio-result.ts) as the service documents and checks
 * its answers: the same fields and descriptions, every object open to keys it does not name (a
 * result written by a newer library may hold more; the service passes them on), and the shared
 * parts named as OpenAPI components. The library's schemas themselves are left as they are.
 */
import { z } from 'zod';

import { named } from './registry.js';

const made = new Map<z.ZodType, z.ZodType>();

function open(schema: z.ZodType, names: ReadonlyMap<z.ZodType, string>): z.ZodType {
  if (schema instanceof z.ZodObject) {
    return z.looseObject(Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, lenient(v, names)])));
  }
  if (schema instanceof z.ZodOptional) return lenient(schema.unwrap() as z.ZodType, names).optional();
  if (schema instanceof z.ZodNullable) return lenient(schema.unwrap() as z.ZodType, names).nullable();
  if (schema instanceof z.ZodArray) return z.array(lenient(schema.element as z.ZodType, names));
  return schema;
}

/** `schema` with every object open, described as it is, named where `names` names it; one copy per schema. */
export function lenient(schema: z.ZodType, names: ReadonlyMap<z.ZodType, string> = new Map()): z.ZodType {
  let out = made.get(schema);
  if (out) return out;
  out = open(schema, names);
  if (schema.description !== undefined && out !== schema) out = out.describe(schema.description);
  const id = names.get(schema);
  if (id !== undefined) out = named(id, out);
  made.set(schema, out);
  return out;
}
