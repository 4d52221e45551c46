/**
 * `volbench doctor`: whether this machine runs volbench, a line per thing looked at, each ok,
 * warn or fail with what to do. Exit 0 when no line fails, 1 when one does.
 */
import { parseArgs } from 'node:util';

import { VolbenchError } from '../errors.js';
import { defaultDataDir } from '../server/config.js';
import {
  addonCheck, awsConfiguredCheck, dataDirCheck, directoryChecks, engineChecks, nodeCheck, npmCheck, type Check,
} from './doctor-checks.js';
import type { CommandIo } from './io.js';

export const DOCTOR_USAGE = `Usage:
  volbench doctor [--directory DIR] [--data-dir DIR] [--aws [--region R] [--profile P]]

Looks at what volbench needs here and says, a line each, ok, warn or fail with what to do:
Node.js and npm, which addon loads (prebuilt or built from source) and why, io_uring and libaio
(the addon's own probe), O_DIRECT and free space in DIR (default: the current directory), the
service's data directory (default $XDG_DATA_HOME/volbench) and, with --aws, the AWS region and
credentials (STS GetCallerIdentity through the standard credential chain). Without --aws it
only says whether credentials are configured. Exit status: 0 when no line fails, 1 otherwise.
`;

const OPTIONS = {
  directory: { type: 'string' },
  'data-dir': { type: 'string' },
  aws: { type: 'boolean' },
  region: { type: 'string' },
  profile: { type: 'string' },
} as const;

const MARK: Record<Check['verdict'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** `ok    io_uring     available`, and what to do under a line that is not ok. */
export function checkLines(checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.subject.length));
  return checks.map((c) => {
    const line = `${MARK[c.verdict]}  ${c.subject.padEnd(width)}  ${c.text}\n`;
    return c.todo && c.verdict !== 'ok' ? `${line}      ${' '.repeat(width)}  → ${c.todo}\n` : line;
  }).join('');
}

export async function doctorCommand(argv: string[], io: CommandIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    throw new VolbenchError('EINVALID_ARGS', `doctor: ${(err as Error).message}`, { accepted: '--directory DIR, --data-dir DIR, --aws, --region R, --profile P' });
  }
  const checks: Check[] = [nodeCheck(), await npmCheck(), addonCheck(), ...engineChecks()];
  checks.push(...(await directoryChecks(values.directory ?? '.')), dataDirCheck(values['data-dir'] ?? defaultDataDir()));
  if (values.aws) {
    const { awsChecks } = await import('./doctor-aws.js');
    checks.push(...(await awsChecks({ region: values.region, profile: values.profile })));
  } else {
    checks.push(awsConfiguredCheck());
  }
  io.stdout.write(checkLines(checks));
  const failed = checks.filter((c) => c.verdict === 'fail').length;
  const warned = checks.filter((c) => c.verdict === 'warn').length;
  io.stdout.write(failed ? `${failed} failed, ${warned} to look at\n` : `volbench can run here${warned ? ` (${warned} to look at)` : ''}\n`);
  return failed ? 1 : 0;
}
