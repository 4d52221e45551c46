/**
 * `volbench prices refresh --region R [--out FILE]`: a region's EBS prices from the AWS Price
 * List API, as a dated prices file that `--prices FILE` (or VOLBENCH_PRICES) puts in place of
 * the catalog's shipped prices. An existing --out file keeps its other regions, so one file can
 * gather several.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { fetchPriceList, parsePriceList, pricesFileWith, readPricesFile, today } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import type { CommandIo } from './io.js';

export const PRICES_USAGE = `Usage:
  volbench prices refresh --region R [--out FILE] [--profile P]

Reads the EBS prices of region R from the AWS Price List API (GetProducts, in us-east-1; the
default credential chain, or --profile) and writes them as a dated prices file: to FILE (other
regions already in it are kept), else to stdout. Then --prices FILE, or VOLBENCH_PRICES=FILE,
makes catalog price, fleet plan, report and run use them in place of the shipped prices.
A price older than 180 days is printed with a warning naming its date.
`;

const OPTIONS = {
  region: { type: 'string' },
  out: { type: 'string' },
  profile: { type: 'string' },
} as const;

export async function pricesCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `prices: ${(err as Error).message}`, { accepted: 'see volbench prices --help' });
  }
  const { values, positionals } = parsed;
  const [sub] = positionals;
  if (sub !== 'refresh') {
    throw new VolbenchError('EINVALID_ARGS', `prices: ${sub === undefined ? 'which subcommand?' : `unknown subcommand '${sub}'`}`, { accepted: 'refresh' });
  }
  const region = values.region;
  if (!region) throw new VolbenchError('EINVALID_ARGS', 'prices refresh: --region is required', { field: '--region', accepted: 'an AWS region, e.g. eu-central-1' });
  // A bad existing --out is refused before the API is asked.
  const base = values.out !== undefined && existsSync(values.out) ? readPricesFile(values.out) : undefined;
  const entries = await fetchPriceList(region, { profile: values.profile });
  const result = parsePriceList(entries, region);
  const types = Object.keys(result.prices);
  if (types.length === 0) {
    throw new VolbenchError('ECLOUD', `pricing:GetProducts returned no EBS prices for ${region} (${entries.length} products): is it a region AWS prices?`, {
      field: '--region', accepted: 'a commercial AWS region, e.g. eu-central-1',
    });
  }
  for (const why of Object.values(result.missing)) io.stderr.write(`volbench: warning: ${why}; the shipped price stays\n`);
  const file = pricesFileWith(base, region, result, today());
  const text = `${JSON.stringify(file, null, 2)}\n`;
  if (values.out !== undefined) {
    writeFileSync(values.out, text);
    io.stderr.write(`volbench: ${types.length} EBS types priced in ${region} as of ${file.as_of} (${types.join(', ')}) -> ${values.out}\n`);
  } else {
    io.stdout.write(text);
  }
  return 0;
}
