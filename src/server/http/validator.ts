/**
 * Request validation through the zod type provider, a keyed union (src/api/keyed-union.ts)
 * validated as the one branch its key picks, so an error names the field inside the shape the
 * client meant.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

import { branchFor, isKeyedUnion } from '../../api/keyed-union.js';

export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  if (!isKeyedUnion(route.schema)) return zodValidatorCompiler(route);
  return (data: unknown) => zodValidatorCompiler({ ...route, schema: branchFor(route.schema, data) })(data);
};
