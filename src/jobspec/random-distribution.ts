/**
 * `random_distribution=`: how random offsets are spread. fio 3.33 (options.c
 * str_random_distribution_cb) knows random, zipf[:theta], pareto[:h], normal[:sigma], zoned and
 * zoned_abs; each of zipf, pareto and normal may take a second value, the center.
 */
import type { PerDirection, RandomDistribution, ZoneSplit } from './types.js';
import { invalidValue, unsupported } from './fail.js';
import { parseDecimal } from './units.js';

export const RANDOM_DISTRIBUTION_ACCEPTED =
  'random, zipf[:theta] (theta not 1, default 1.1), pareto[:h] (0 < h < 1, default 0.2), ' +
  'normal[:sigma] (0 <= sigma < 100, a percentage of the region, default 0), ' +
  'zoned:A/S[:A/S…] (A% of the I/Os on the next S% of the region; the A add up to 100, the S to at most 100)';

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
      return { kind: 'zoned', zones: parseZoned(params.join(':'), field) };
    case 'zoned_abs':
      throw unsupported(field, `random_distribution=${kind} is not supported by volbench yet`, RANDOM_DISTRIBUTION_ACCEPTED);
    default:
      // fio 3.33 has no 'gauss' alias here (only file_service_type has one): fio refuses it too.
      throw invalidValue(field, `'${text}' is not a random distribution`, RANDOM_DISTRIBUTION_ACCEPTED);
  }
}

/** fio's ZONESPLIT_MAX: zones per direction. */
const ZONES_MAX = 256;

const wholePercent = (text: string, what: string, field: string): number => {
  if (!/^\d+$/.test(text.trim())) throw invalidValue(field, `${what} '${text}' is not a whole percentage`, RANDOM_DISTRIBUTION_ACCEPTED);
  const n = Number(text.trim());
  if (n > 100) throw invalidValue(field, `${what} '${text}' is above 100`, RANDOM_DISTRIBUTION_ACCEPTED);
  return n;
};

/**
 * One direction's zones, as fio's zone_split_ddir reads them: `access/size` entries; a size
 * missing (or 0) shares what the given ones leave, rounded down; the accesses must add up to
 * 100 exactly and the sizes to at most 100 (zones may leave the region's end untouched).
 */
function parseZoneList(list: string, field: string): ZoneSplit[] {
  const entries = list.split(':').filter((e, i, all) => !(i === all.length - 1 && e.trim() === '' && all.length > 1));
  if (entries.some((e) => e.trim() === '')) throw invalidValue(field, `'${list}' has an empty zone`, RANDOM_DISTRIBUTION_ACCEPTED);
  if (entries.length > ZONES_MAX) throw invalidValue(field, `'${list}' has more than ${ZONES_MAX} zones`, RANDOM_DISTRIBUTION_ACCEPTED);
  const raw = entries.map((e) => {
    const [access, size, extra] = e.split('/');
    if (extra !== undefined) throw invalidValue(field, `zone '${e}' has more than one '/'`, RANDOM_DISTRIBUTION_ACCEPTED);
    const sizePct = size === undefined || size.trim() === '' ? 0 : wholePercent(size, 'zone size', field);
    return { access: wholePercent(access, 'zone access', field), size: sizePct === 0 ? undefined : sizePct };
  });
  const accesses = raw.reduce((sum, z) => sum + z.access, 0);
  const sizes = raw.reduce((sum, z) => sum + (z.size ?? 0), 0);
  if (accesses !== 100) throw invalidValue(field, `the zones' accesses add up to ${accesses}, not 100`, RANDOM_DISTRIBUTION_ACCEPTED);
  if (sizes > 100) throw invalidValue(field, `the zones' sizes add up to ${sizes}, more than 100`, RANDOM_DISTRIBUTION_ACCEPTED);
  const missing = raw.filter((z) => z.size === undefined).length;
  const share = missing ? Math.floor((100 - sizes) / missing) : 0;
  return raw.map((z) => ({ access: z.access, size: z.size ?? share }));
}

/**
 * One list of zones for every direction. fio's zoned parser would take read,write,trim lists
 * (options.c str_split_parse), but fio 3.33 never reaches it with a comma in the value: its
 * option matcher reads the word up to the first ',' before the first ':', finds no
 * distribution called `zoned:…,…` and refuses the job. So volbench refuses a comma too.
 */
function parseZoned(text: string, field: string): PerDirection<ZoneSplit[]> {
  if (text.includes(',')) {
    throw invalidValue(field, `'zoned:${text}': per-direction zone lists (a comma) are refused, as fio 3.33 refuses them`,
      RANDOM_DISTRIBUTION_ACCEPTED);
  }
  if (text.trim() === '') throw invalidValue(field, `'zoned:' gives no zones`, RANDOM_DISTRIBUTION_ACCEPTED);
  const zones = parseZoneList(text, field);
  return [zones, zones.map((z) => ({ ...z })), zones.map((z) => ({ ...z }))];
}
