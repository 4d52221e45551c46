/**
 * `--region R` where it picks prices (report, catalog): a region no price list has is refused,
 * naming the flag and the regions there are, rather than leaving every price empty.
 */
import { loadCatalog, priceRegions } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import { closestName } from '../jobspec/suggest.js';

/** `region`, when `types` (default: every type of the catalog) have prices there. */
export function checkPriceRegion(region: string, types?: readonly string[]): string {
  const names = types ?? loadCatalog().flatMap((c) => c.types.map((t) => t.type));
  const known = [...new Set(names.flatMap((t) => priceRegions(t)))].sort();
  if (known.includes(region)) return region;
  const near = closestName(region, known);
  const refresh = `an AWS region's EBS prices come from volbench prices refresh --region ${region} --out FILE, then --prices FILE`;
  throw new VolbenchError('EINVALID_VALUE', `--region '${region}' has no prices${near ? ` (did you mean '${near}'?)` : ''}; ${refresh}`, {
    field: '--region',
    accepted: known.join(', '),
  });
}
