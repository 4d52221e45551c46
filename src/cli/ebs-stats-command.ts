/**
 * `volbench ebs-stats DEVICE | --page FILE [--format text|json]`: a Nitro volume's own
 * statistics (NVMe log page 0xD0), read from the device or decoded from a saved page.
 */
import { open } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { decodeEbsLogPage, type EbsLogPage } from '../device/ebs-log-page.js';
import { ebsSourceOfPath, isUnavailable, readEbsRawPage } from '../device/ebs-stats-source.js';
import { closeEmulatedNvmeDir, openEmulatedNvmeDir } from '../device/emulated-nvme.js';
import { VolbenchError } from '../errors.js';
import type { CommandIo } from './io.js';
import { formatEbsPageText } from './ebs-stats-text.js';

export const EBS_STATS_USAGE = `Usage:
  volbench ebs-stats DEVICE [--format text|json]
  volbench ebs-stats --page FILE [--format text|json]

What a Nitro EBS or instance-store volume says of itself: NVMe log page 0xD0 (the page
\`nvme amzn stats\` and the CloudWatch agent read), from DEVICE (/dev/nvme1n1, a partition of
it, or the controller /dev/nvme1; needs root: CAP_SYS_ADMIN) or from FILE, a saved page.
Counters are since the volume was attached: operations, bytes, time in operations (µs), the
time (µs) demand exceeded the volume's IOPS and throughput and the instance's EBS IOPS and
throughput, the queue length now, and the read and write latency histograms.

--format json prints the page's fields raw under the layout's names (total_read_ops ...
volume_queue_length), the histograms as [{lower_us, upper_us, count}], and "page": "ebs" or
"instance-store". Exit 0; 1 when the device does not answer (not NVMe, not EBS, no
privilege); 2 on bad input, a page shorter than 3,600 bytes or with an unknown magic.
`;

/** A saved page is 4,096 bytes, or a few times that with per-size histograms. */
const MAX_PAGE_FILE_BYTES = 1 << 20;

async function readPageFile(path: string): Promise<Buffer> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (cause) {
    throw new VolbenchError('EINVALID_ARGS', `cannot read ${path}: ${(cause as Error).message}`, { field: '--page', path, cause });
  }
  try {
    const st = await file.stat();
    if (!st.isFile()) throw new VolbenchError('EINVALID_ARGS', `${path} is not a regular file`, { field: '--page', accepted: 'a file holding a saved page' });
    if (st.size > MAX_PAGE_FILE_BYTES) {
      throw new VolbenchError('EINVALID_VALUE', `${path} is ${st.size} bytes: a page is 4,096`, { field: '--page', accepted: `at most ${MAX_PAGE_FILE_BYTES} bytes` });
    }
    return await file.readFile();
  } finally {
    await file.close();
  }
}

function parse(argv: string[]): { device?: string; page?: string; json: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { page: { type: 'string' }, format: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `ebs-stats: ${(err as Error).message}`, { accepted: 'DEVICE or --page FILE, --format text|json' });
  }
  const { values, positionals } = parsed;
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') {
    throw new VolbenchError('EINVALID_ARGS', `ebs-stats: --format takes text or json, not '${format}'`, { field: '--format', accepted: 'text, json' });
  }
  const given = positionals.length + (values.page === undefined ? 0 : 1);
  if (given !== 1) {
    throw new VolbenchError('EINVALID_ARGS', `ebs-stats takes one device or --page FILE, got ${given === 0 ? 'neither' : positionals.length > 1 ? `${positionals.length} devices` : 'both'}`, {
      field: 'DEVICE', accepted: 'a device (/dev/nvme1n1) or --page FILE',
    });
  }
  return { device: positionals[0], page: values.page, json: format === 'json' };
}

export async function ebsStatsCommand(argv: string[], io: CommandIo): Promise<number> {
  const args = parse(argv);
  let page: EbsLogPage;
  let from: { source: string; device: string } | undefined;
  if (args.page !== undefined) {
    page = decodeEbsLogPage(await readPageFile(args.page));
  } else {
    const device = args.device!;
    const seam = openEmulatedNvmeDir();
    if (seam && 'refused' in seam) io.stderr.write(`volbench: warning: ${seam.refused}\n`);
    const dir = seam && 'dir' in seam ? seam.dir : null;
    try {
      const source = await ebsSourceOfPath(device, dir);
      const raw = isUnavailable(source) ? source : await readEbsRawPage(source);
      if (isUnavailable(raw)) {
        io.stderr.write(`volbench: ${device}: no EBS statistics: ${raw.unavailable}\n`);
        return 1;
      }
      page = decodeEbsLogPage(raw.bytes);
      from = { source: raw.source, device: raw.device };
    } finally {
      if (dir) closeEmulatedNvmeDir(dir);
    }
  }
  io.stdout.write(args.json ? `${JSON.stringify({ ...(from ?? {}), ...page }, null, 2)}\n` : formatEbsPageText(page, from?.device));
  return 0;
}
