/**
 * Unions told apart by a key. zod's own union reports, when no branch fits, every branch's
 * complaints at the root ("Invalid input"), so a typo deep in one shape could not be named by its
 * field. A keyed union is still one union in the OpenAPI document, but a request is validated
 * against the one branch its key picks (the service's validator asks `branchFor`), and errors
 * name fields inside it.
 */
import type { z } from 'zod';

const branches = new WeakMap<object, (data: unknown) => z.ZodType>();

/** `union`, validated as `withKey` when the data is an object holding `key`, else as `withoutKey`. */
export function keyedUnion<T extends z.ZodType>(union: T, key: string, withKey: z.ZodType, withoutKey: z.ZodType): T {
  branches.set(union, (data) =>
    typeof data === 'object' && data !== null && !Array.isArray(data) && Object.hasOwn(data, key) ? withKey : withoutKey);
  return union;
}

export function isKeyedUnion(schema: z.ZodType): boolean {
  return branches.has(schema);
}

/** The branch `data` is validated against: keyed unions may nest (a branch that is itself one). */
export function branchFor(schema: z.ZodType, data: unknown): z.ZodType {
  for (let pick = branches.get(schema); pick !== undefined; pick = branches.get(schema)) schema = pick(data);
  return schema;
}
