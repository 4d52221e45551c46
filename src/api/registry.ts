/**
 * Named schemas: each becomes a `components/schemas` entry in the OpenAPI document. Names live
 * in zod's global registry next to the descriptions (`.describe()` puts those there), but on a
 * copy of the schema (`.meta()` returns one), so a schema imported from the library is left
 * exactly as it was.
 */
import { z } from 'zod';

export const apiSchemas = z.globalRegistry;

/** `schema` under the name `id`, keeping its description. */
export function named<T extends z.ZodType>(id: string, schema: T): T {
  return schema.meta({ ...z.globalRegistry.get(schema), id }) as T;
}
