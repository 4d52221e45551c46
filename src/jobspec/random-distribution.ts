/**
 * `random_distribution=`: how random offsets are spread. fio 3.33 (options.c
 * str_random_distribution_cb) knows random, zipf[:theta], pareto[:h], normal[:sigma], zoned and
 * zoned_abs; each of zipf, pareto and normal may take a second value, the center.
 */
import type { RandomDistribution } from './types.js';
import { invalidValue, unsupported } from './fail.js';
import { parseDecimal } from './units.js';

export const RANDOM_DISTRIBUTION_ACCEPTED =
  'random, zipf[:theta] (theta not 1, default 1.1), pareto[:h] (0 < h < 1, default 0.2), ' +
  'normal[:sigma] (0 <= sigma < 100, a percentage of the region, default 0)';

/** fio's FIO_DEF_ZIPF and FIO_DEF_PARETO; normal's deviation defaults to 0. */
const DEFAULT_PARAMETER = { zipf: 1.1, pareto: 0.2, normal: 0 } as const;

type Skewed = keyof typeof DEFAULT_PARAMETER;

function checkParameter(kind: Skewed, value: number, field: string): void {
  const fail = (why: string) => invalidValue(field, `${kind} ${why}`, RANDOM_DISTRIBUTION_ACCEPTED);
  if (kind === 'zipf' && value === 1) throw fail('theta must not be 1.0');
  if (kind === 'pareto' && (value <= 0 || value >= 1)) throw fail(`h ${value} is not in (0, 1)`);
  if (kind === 'normal' && (value < 0 || value >= 100)) throw fail(`sigma ${value} is not in [0, 100)`);
}

function parseSkewed(kind: Skewed, params: string[], field: string): RandomDistribution {
  if (params.length > 1) {
    const why = `a distribution center ('${params[1]}') is not supported by volbench yet`;
    throw unsupported(field, why, RANDOM_DISTRIBUTION_ACCEPTED);
  }
  const value = params.length && params[0].trim() !== ''
    ? parseDecimal(params[0], { field, accepted: RANDOM_DISTRIBUTION_ACCEPTED })
    : DEFAULT_PARAMETER[kind];
  checkParameter(kind, value, field);
  if (kind === 'zipf') return { kind, theta: value };
  if (kind === 'pareto') return { kind, h: value };
  return { kind, sigmaPct: value };
}

export function parseRandomDistribution(text: string, ctx: { field?: string } = {}): RandomDistribution {
  const field = ctx.field ?? 'value';
  const [kind, ...params] = text.trim().split(':');
  switch (kind) {
    case 'random':
      if (params.length) throw invalidValue(field, `'random' takes no parameter`, RANDOM_DISTRIBUTION_ACCEPTED);
      return { kind: 'random' };
    case 'zipf':
    case 'pareto':
    case 'normal':
      return parseSkewed(kind, params, field);
    case 'zoned':
    case 'zoned_abs':
      throw unsupported(field, `random_distribution=${kind} is not supported by volbench yet`, RANDOM_DISTRIBUTION_ACCEPTED);
    default:
      // fio 3.33 has no 'gauss' alias here (only file_service_type has one): fio refuses it too.
      throw invalidValue(field, `'${text}' is not a random distribution`, RANDOM_DISTRIBUTION_ACCEPTED);
  }
}
