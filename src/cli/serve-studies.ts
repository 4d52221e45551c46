/**
 * `volbench serve`'s study flags: studies (POST /v1/studies) spend money, so they are off unless
 * --studies is given, with a token of their own and the operator's limits. Wiring only; the
 * limits are applied in src/server/studies/.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { checkAwsRegion } from '../cloud/aws-clients.js';
import { VolbenchError } from '../errors.js';
import { checkBundleName, fleetVolumeTypes } from '../fleet/index.js';
import { readTokenFile } from '../server/http/token.js';
import { STUDY_DEFAULTS, type StudyConfig, type StudyPackages } from '../server/studies/study-config.js';
import { VERSION } from '../version.js';

export const STUDY_USAGE = `  --studies                   serve /v1/studies: studies create instances and volumes that bill (off without it)
  --study-token-file FILE     the study routes' bearer token (or $VOLBENCH_STUDY_TOKEN), not the run token; chmod 600
  --study-bucket BUCKET       the S3 bucket studies live in; repeat to allow others a request may name (the first is the default)
  --study-max-cost USD        the most a study's estimate may be (default ${STUDY_DEFAULTS.maxCostUsd})
  --study-max-concurrent N    studies open at once (default ${STUDY_DEFAULTS.maxConcurrent})
  --study-regions LIST        regions allowed, comma-separated; the first is the default (default $AWS_REGION)
  --study-instance-types LIST instance types allowed (default: any in the catalog)
  --study-volume-types LIST   volume types allowed (default: any AWS type in the catalog)
  --study-package FILE        the members' bundle (volbench-VERSION-linux-ARCH.tar.gz); repeat for x64 and arm64
                              (default: bundles/ of this install, as npm run bundle writes them)
`;

export const STUDY_OPTIONS = {
  studies: { type: 'boolean' },
  'study-token-file': { type: 'string' },
  'study-bucket': { type: 'string', multiple: true },
  'study-max-cost': { type: 'string' },
  'study-max-concurrent': { type: 'string' },
  'study-regions': { type: 'string' },
  'study-instance-types': { type: 'string' },
  'study-volume-types': { type: 'string' },
  'study-package': { type: 'string', multiple: true },
} as const;

export interface StudyValues {
  studies?: boolean;
  'study-token-file'?: string;
  'study-bucket'?: string[];
  'study-max-cost'?: string;
  'study-max-concurrent'?: string;
  'study-regions'?: string;
  'study-instance-types'?: string;
  'study-volume-types'?: string;
  'study-package'?: string[];
}

function refuse(flag: string, detail: string, accepted: string): never {
  throw new VolbenchError('EINVALID_ARGS', `${flag} ${detail}`, { field: flag, accepted });
}

function list(flag: string, text: string | undefined, check?: (item: string) => void): string[] | undefined {
  if (text === undefined) return undefined;
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) refuse(flag, 'lists nothing', 'a comma-separated list');
  items.forEach((item) => check?.(item));
  return items;
}

/** The members' bundles, by architecture: those given, else the ones `npm run bundle` left in this install. */
function packages(given: string[] | undefined): StudyPackages {
  const files: Partial<Record<'x64' | 'arm64', string>> = {};
  for (const file of given ?? []) {
    const arch = /-linux-(x64|arm64)\.tar\.gz$/.exec(file)?.[1] as 'x64' | 'arm64' | undefined;
    if (!arch) refuse('--study-package', `${file}: its name does not say its architecture`, 'volbench-VERSION-linux-x64.tar.gz or -arm64.tar.gz');
    checkBundleName(file.split('/').pop()!, arch === 'x64' ? 'x86_64' : 'arm64');
    if (!existsSync(file)) refuse('--study-package', `${file} does not exist`, 'a bundle npm run bundle wrote');
    files[arch] = resolve(file);
  }
  if (given?.length) return { files };
  for (const arch of ['x64', 'arm64'] as const) {
    const file = fileURLToPath(new URL(`../../bundles/volbench-${VERSION}-linux-${arch}.tar.gz`, import.meta.url));
    if (existsSync(file)) files[arch] = file;
  }
  if (!files.x64 && !files.arm64) refuse('--study-package', 'is needed: this install has no bundle for the members (npm run bundle -- --arch x64)', 'a bundle file');
  return { files };
}

/** The study configuration the flags make, or undefined without --studies; `runToken` must not be the study token. */
export function studyConfig(values: StudyValues, env: NodeJS.ProcessEnv, runToken: () => string): StudyConfig | undefined {
  const given = Object.keys(values).filter((k) => k.startsWith('study-') && values[k as keyof StudyValues] !== undefined);
  if (!values.studies) {
    if (given.length) refuse(`--${given[0]}`, 'is for studies: give --studies with it', '--studies');
    return undefined;
  }
  const tokenFile = values['study-token-file'];
  const token = tokenFile !== undefined ? readTokenFile(tokenFile, '--study-token-file') : env.VOLBENCH_STUDY_TOKEN;
  if (!token) refuse('--study-token-file', 'is needed with --studies (or $VOLBENCH_STUDY_TOKEN): studies spend money, under a token of their own', 'a file only its owner may read (chmod 600)');
  const buckets = values['study-bucket'] ?? [];
  if (!buckets.length) refuse('--study-bucket', 'is needed with --studies: the S3 bucket studies live in', 'an S3 bucket name');
  const cost = values['study-max-cost'] === undefined ? STUDY_DEFAULTS.maxCostUsd : Number(values['study-max-cost']);
  if (!Number.isFinite(cost) || cost <= 0) refuse('--study-max-cost', `takes dollars, not '${values['study-max-cost']}'`, 'a number of USD above 0, e.g. 20');
  const concurrent = values['study-max-concurrent'] === undefined ? STUDY_DEFAULTS.maxConcurrent : Number(values['study-max-concurrent']);
  if (!Number.isInteger(concurrent) || concurrent < 1) refuse('--study-max-concurrent', `takes a whole number of at least 1, not '${values['study-max-concurrent']}'`, 'an integer >= 1');
  const regions = list('--study-regions', values['study-regions'] ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION), (r) => checkAwsRegion(r, '--study-regions'));
  if (!regions) refuse('--study-regions', 'is needed with --studies (or $AWS_REGION)', 'regions, e.g. us-east-1,eu-west-1');
  const types = fleetVolumeTypes();
  const volumeTypes = list('--study-volume-types', values['study-volume-types'], (t) => {
    if (!types.includes(t)) refuse('--study-volume-types', `names ${t}, which is no AWS volume type of the catalog`, types.join(', '));
  });
  const instanceTypes = list('--study-instance-types', values['study-instance-types']);
  const files = packages(values['study-package']);
  // Last: the run token is generated (and printed) only for a command line that serves.
  if (token === runToken()) refuse('--study-token-file', 'holds the run token: the study token must be another', 'a token of its own');
  return {
    token, bucket: buckets[0], ...(buckets.length > 1 ? { buckets: buckets.slice(1) } : {}), maxCostUsd: cost, maxConcurrent: concurrent, regions,
    ...(instanceTypes ? { instanceTypes } : {}), ...(volumeTypes ? { volumeTypes } : {}), packages: files,
    driver: 'loop', index: 'store',
    // For tests, which cannot wait the loop's seconds: its longest wait between a study's calls.
    ...(env.VOLBENCH_STUDY_POLL_MS ? { pollMs: Number(env.VOLBENCH_STUDY_POLL_MS), runningPollMs: Number(env.VOLBENCH_STUDY_POLL_MS) } : {}),
  };
}
