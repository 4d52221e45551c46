/**
 * Which prices a command uses: the catalog's shipped ones, or a prices file written by
 * `volbench prices refresh` and given with `--prices FILE` (or VOLBENCH_PRICES), whose entries
 * take the place of the shipped ones for the types and regions it holds. Every price is dated;
 * one older than STALE_AFTER_DAYS is reported with its date wherever it is used.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

import { VolbenchError } from '../errors.js';
import { AWS_REGION_NAME } from './aws-clients.js';
import { loadCatalog, volumeType } from './catalog.js';
import { RegionPrice, type RegionPriceInfo } from './schema.js';
import { ownValue } from '../own-key.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const REGION = AWS_REGION_NAME;

/** A prices file: the catalog's per-region price entries by type, dated as a whole and each. */
export const PricesFile = z.object({
  provider: z.literal('aws'),
  service: z.literal('ebs'),
  /** When the prices were read. */
  as_of: z.string().regex(DATE),
  /** Where from (the Price List API's endpoint). */
  source: z.string().url(),
  prices: z.record(z.string().regex(/^[a-z0-9-]+$/), z.record(z.string().regex(REGION), RegionPrice)),
}).strict();

export type PricesFileData = z.infer<typeof PricesFile>;

/** Prices older than this many days are reported with their date. */
export const STALE_AFTER_DAYS = 180;

/** Checks a prices file's text: its shape, and that every type is one the catalog knows. */
export function parsePricesFile(text: string, file: string): PricesFileData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new VolbenchError('EINVALID_SPEC', `prices file ${file} is not JSON: ${(err as Error).message}`, { path: file, field: '--prices' });
  }
  const parsed = PricesFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VolbenchError('EINVALID_SPEC', `prices file ${file}: ${issue.path.join('.')}: ${issue.message}`, {
      path: file, field: issue.path.join('.'), accepted: 'a file written by volbench prices refresh',
    });
  }
  const ebs = catalogTypes();
  for (const type of Object.keys(parsed.data.prices)) {
    try {
      volumeType(type);
    } catch (err) {
      throw new VolbenchError('EINVALID_SPEC', `prices file ${file}: prices.${type}: ${(err as Error).message}`, { path: file, field: `prices.${type}` });
    }
    if (!ebs.includes(type)) {
      throw new VolbenchError('EINVALID_SPEC', `prices file ${file}: prices.${type}: a prices file holds EBS prices, and ${type} is not an EBS type`, {
        path: file, field: `prices.${type}`, accepted: ebs.join(', '),
      });
    }
  }
  return parsed.data;
}

export function readPricesFile(file: string): PricesFileData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `cannot read prices file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      path: file, field: '--prices', accepted: 'a file written by volbench prices refresh',
    });
  }
  return parsePricesFile(text, file);
}

let explicit: { file: string; data: PricesFileData } | undefined;
let fromEnv: { file: string; data: PricesFileData } | undefined;

/** Uses this prices file in place of the shipped prices (--prices); undefined: back to the default. */
export function usePrices(file: string | undefined): PricesFileData | undefined {
  explicit = file === undefined ? undefined : { file, data: readPricesFile(file) };
  return explicit?.data;
}

/** The prices file in use, if any: --prices, else VOLBENCH_PRICES (read once per path). */
export function activePrices(): { file: string; data: PricesFileData } | undefined {
  if (explicit) return explicit;
  const file = process.env.VOLBENCH_PRICES;
  if (!file) return undefined;
  if (fromEnv?.file !== file) fromEnv = { file, data: readPricesFile(file) };
  return fromEnv;
}

/** A type's prices in a region: the prices file's when it has them, else the catalog's. */
export function regionPrice(type: string, region: string): RegionPriceInfo | undefined {
  return ownValue(ownValue(activePrices()?.data.prices, type), region) ?? ownValue(volumeType(type).prices, region);
}

/** The regions a type has prices for, from both sources. */
export function priceRegions(type: string): string[] {
  return [...new Set([...Object.keys(ownValue(activePrices()?.data.prices, type) ?? {}), ...Object.keys(volumeType(type).prices)])];
}

/** Whole days from `asOf` (YYYY-MM-DD) to `now`. */
export function ageInDays(asOf: string, now: Date = new Date()): number {
  return Math.floor((now.getTime() - Date.parse(`${asOf}T00:00:00Z`)) / 86_400_000);
}

/** A warning for a price dated more than STALE_AFTER_DAYS ago, naming its date; else undefined. */
export function staleWarning(asOf: string, now: Date = new Date()): string | undefined {
  const days = ageInDays(asOf, now);
  if (!(days > STALE_AFTER_DAYS)) return undefined;
  return `prices as of ${asOf} are ${days} days old (over ${STALE_AFTER_DAYS}): refresh them with volbench prices refresh --region R --out FILE and pass --prices FILE`;
}

/** Every EBS type of the catalog (what a refresh from the Price List API covers). */
export function catalogTypes(): string[] {
  return loadCatalog().filter((c) => c.provider === 'aws' && c.service === 'ebs').flatMap((c) => c.types.map((t) => t.type));
}
