/**
 * `volbench report FILE... [--format md|csv|json|html] [--out FILE]`, or with `--server URL
 * --run ID [--run ID2]` the same report of runs a service stored (the service renders it).
 */
import { writeFile } from 'node:fs/promises';

import { activePrices, defaultPriceRegion, staleWarning } from '../cloud/index.js';
import { VolbenchError } from '../errors.js';
import {
  buildPublishReport, catalogPricer, parseRankBy, parseUnits, readReportFile, renderReport, REPORT_FORMATS,
  type ReportFormat, type ThroughputUnit, type VerdictMetric,
} from '../publish/index.js';
import { isS3Url, parseS3Url, readReportS3 } from '../publish/read-s3.js';
import { flagName, flagValue } from './own-flags.js';
import { checkPriceRegion } from './region-flag.js';
import type { CommandIo } from './io.js';

export const REPORT_USAGE = `Usage:
  volbench report RESULT.json|s3://bucket/key ... [--format md|csv|json|html] [--out FILE] [--region R]
                  [--label NAME ...] [--rank-by METRIC] [--units MiB/s|MB/s]
  volbench report --server URL --run ID [--run ID2 ...] [--token TOKEN] [--format ...] [--out FILE]

A price/performance table (one row per target or volume, one column per test of the suite) of
fio or volbench JSON results, as Markdown (default), CSV, JSON or a self-contained HTML page
with charts. With --server, the runs a volbench service stored (token: --token or
VOLBENCH_TOKEN). A result may be an S3 URL: s3://bucket/key.json, or s3://bucket/prefix/ for
every .json object under it (a fleet's results), read with the default AWS credential chain.

A result that names its volume (volbench.cloud: run --volume, fleets) is priced from the
catalog in the result's region, or --region (default ${defaultPriceRegion('aws')}) when it names none;
the price list's date is printed under each table.

A row is labelled by its volume (gp3 500 GiB 3000/125), else by its target; repeats get the
target or a short run id added. --label NAME, once per RESULT in order, names rows instead.
Above the tables, one verdict line per question the suite answers (suites/index.json);
--rank-by iops|mibps|p50_us|p99_us|usd_per_1000_iops|usd_per_mibps asks each of those tests by
that figure instead. --units MB/s shows throughput in 10^6 bytes/s (default MiB/s); the JSON
keeps MiB/s. A measured/entitled above 1.10 is flagged (⚑) with its likely cause. --prices FILE (or VOLBENCH_PRICES; see
volbench prices refresh) prices every volume from that file where it has the type and region,
also those whose result carries a price; a price older than 180 days is warned about.
`;

interface ReportArgs {
  files: string[];
  format: ReportFormat;
  out?: string;
  server?: string;
  runs: string[];
  token?: string;
  region?: string;
  labels: string[];
  rankBy?: VerdictMetric;
  units?: ThroughputUnit;
}

function parseFormat(value: string): ReportFormat {
  if ((REPORT_FORMATS as readonly string[]).includes(value)) return value as ReportFormat;
  throw new VolbenchError('EINVALID_VALUE', `--format takes ${REPORT_FORMATS.join(', ')}, not '${value}'`, { field: '--format', accepted: REPORT_FORMATS.join(', ') });
}

const MAX_LABEL = 120;

function checkLabel(value: string): string {
  if (value.trim() === '' || value.length > MAX_LABEL || /[\u0000-\u001f]/.test(value)) {
    throw new VolbenchError('EINVALID_VALUE', `--label must be 1 to ${MAX_LABEL} printable characters`, { field: '--label', accepted: `text of 1 to ${MAX_LABEL} characters` });
  }
  return value;
}

function parseArgs(argv: readonly string[]): ReportArgs {
  const out: ReportArgs = { files: [], format: 'md', runs: [], labels: [] };
  for (let i = 0; i < argv.length; ) {
    const name = flagName(argv[i]);
    if (name === 'format' || name === 'out' || name === 'server' || name === 'run' || name === 'token' || name === 'region'
      || name === 'label' || name === 'rank-by' || name === 'units') {
      const [value, used] = flagValue(argv, i, name);
      if (name === 'format') out.format = parseFormat(value);
      else if (name === 'run') out.runs.push(value);
      else if (name === 'region') out.region = checkPriceRegion(value);
      else if (name === 'label') out.labels.push(checkLabel(value));
      else if (name === 'rank-by') out.rankBy = parseRankBy(value);
      else if (name === 'units') out.units = parseUnits(value);
      else out[name] = value;
      i += used;
    } else if (argv[i].startsWith('-')) {
      throw new VolbenchError('EINVALID_ARGS', `report does not take '${argv[i]}'`, { field: argv[i], accepted: '--format, --out, --region, --label, --rank-by, --units, --server, --run, --token' });
    } else {
      if (isS3Url(argv[i])) parseS3Url(argv[i]);
      out.files.push(argv[i++]);
    }
  }
  if (out.server === undefined && out.runs.length > 0) {
    throw new VolbenchError('EINVALID_ARGS', '--run needs --server', { field: '--run', accepted: '--server URL --run ID' });
  }
  if (out.server !== undefined && (out.runs.length === 0 || out.files.length > 0)) {
    throw new VolbenchError('EINVALID_ARGS', '--server takes one or more --run ID and no files', { field: '--server', accepted: '--server URL --run ID [--run ID2]' });
  }
  if (out.labels.length > 0 && (out.server !== undefined || out.labels.length > out.files.length)) {
    throw new VolbenchError('EINVALID_ARGS', `--label names the RESULT files in order: ${out.labels.length} labels for ${out.files.length} files`, { field: '--label', accepted: 'at most one --label per RESULT file' });
  }
  if (out.server === undefined && out.files.length === 0) {
    throw new VolbenchError('EINVALID_ARGS', 'report needs result files, or --server URL --run ID', { accepted: 'RESULT.json ...' });
  }
  return out;
}

async function fromServer(args: ReportArgs): Promise<string> {
  const token = args.token ?? process.env.VOLBENCH_TOKEN;
  let base: URL;
  try {
    base = new URL('/v1/report', args.server);
  } catch {
    throw new VolbenchError('EINVALID_VALUE', `--server is not a URL: '${args.server}'`, { field: '--server', accepted: 'http://host:port' });
  }
  for (const run of args.runs) base.searchParams.append('run', run);
  base.searchParams.set('format', args.format);
  if (args.rankBy) base.searchParams.set('rank_by', args.rankBy);
  if (args.units) base.searchParams.set('units', args.units);
  const res = await fetch(base, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 500);
    try {
      detail = (JSON.parse(text) as { detail?: string; title?: string }).detail ?? detail;
    } catch {
      // Not a problem document: the text as it came.
    }
    throw new VolbenchError('EINVALID_ARGS', `${args.server} answered ${res.status}: ${detail}`, { field: '--server' });
  }
  return text;
}

export async function reportCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = parseArgs(argv);
  let text: string;
  if (args.server !== undefined) {
    text = await fromServer(args);
  } else {
    const inputs = [];
    for (const [i, file] of args.files.entries()) {
      const label = args.labels[i];
      const read = isS3Url(file) ? await readReportS3(file) : [await readReportFile(file)];
      inputs.push(...read.map((input) => (label === undefined ? input : { ...input, label })));
    }
    const report = buildPublishReport(inputs, { priceVolume: catalogPricer(args.region), reprice: activePrices() !== undefined, rankBy: args.rankBy });
    for (const date of report.price_dates) {
      const stale = staleWarning(date);
      if (stale) io.stderr.write(`volbench: warning: ${stale}\n`);
    }
    text = await renderReport(report, args.format, { units: args.units });
  }
  if (args.out !== undefined) await writeFile(args.out, text);
  else io.stdout.write(text);
  return 0;
}
