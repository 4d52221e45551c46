/**
 * `volbench fleet member`: the autonomous member's agent, run on each instance of a study by the
 * template's user data (not by a person: it is not in `fleet --help`; docs/fleet.md describes it).
 * The flags are the stack's parameters; the study itself is the library's runMemberAgent. With
 * --shutdown the instance shuts itself down once done.json is written. Exits as `volbench suite`
 * would on the result (0, 1), 2 when the member refused its spec, 130 when interrupted.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { S3Client } from '@aws-sdk/client-s3';

import { awsClient } from '../../cloud/index.js';
import { VolbenchError } from '../../errors.js';
import { checkFleetId, VOLUME_LABEL } from '../../fleet/index.js';
import { checkSpecSha256, runMemberAgent, shutdownHost } from '../../fleet/member-agent/index.js';
import type { FleetSubcommand } from './context.js';
import { need, region, type FleetValues } from './flags.js';

function checked(values: FleetValues, flag: 'volume-id' | 'kms-key' | 'instance-id', pattern: RegExp, accepted: string): string | undefined {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (!pattern.test(v)) throw new VolbenchError('EINVALID_ARGS', `--${flag} '${v.slice(0, 80)}' is not ${accepted}`, { field: `--${flag}`, accepted });
  return v;
}

export const member: FleetSubcommand = {
  flags: ['bucket', 'fleet', 'label', 'spec-sha256', 'device', 'volume-id', 'kms-key', 'stack', 'instance-id', 'shutdown'],
  async run({ values, io }) {
    const fleetId = checkFleetId(need(values, 'fleet', 'the fleet id, as the stack names it'), '--fleet');
    const label = need(values, 'label', 'the member\'s label (the stack\'s VolumeLabel)');
    if (!VOLUME_LABEL.test(label)) throw new VolbenchError('EINVALID_ARGS', `--label '${label.slice(0, 80)}' is not a member label`, { field: '--label', accepted: 'letters, digits, . _ - (not first), up to 63' });
    const options = {
      bucket: need(values, 'bucket', 'the study\'s bucket'),
      fleetId,
      label,
      specSha256: checkSpecSha256(need(values, 'spec-sha256', 'the stack\'s StudySpecSha256')),
      device: need(values, 'device', 'the data volume\'s block device'),
      volumeId: checked(values, 'volume-id', /^vol-[0-9a-f]{8,17}$/, 'an EBS volume id'),
      kmsKeyArn: checked(values, 'kms-key', /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]{1,64}$/, 'a KMS key ARN'),
    };
    const instanceId = checked(values, 'instance-id', /^i-[0-9a-f]{8,17}$/, 'an instance id');
    if (values.stack !== undefined && instanceId === undefined) {
      throw new VolbenchError('EINVALID_ARGS', '--stack needs --instance-id: the signal names the instance', { field: '--instance-id', accepted: 'an instance id' });
    }
    const aws = { region: region(values), profile: values.profile };
    const s3 = awsClient(S3Client, aws, 's3');
    const cfn = awsClient(CloudFormationClient, aws);
    const abort = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => {
      io.stderr.write(`${sig}: stopping the run; what it measured is still written\n`);
      abort.abort();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    try {
      const outcome = await runMemberAgent({
        ...options, s3, signal: abort.signal, echo: (line) => io.stderr.write(`${line}\n`),
        ...(values.stack !== undefined ? { stack: { cfn, stackName: values.stack, instanceId: instanceId! } } : {}),
      });
      if (values.shutdown) {
        const down = shutdownHost();
        io.stderr.write(`${down.ok ? down.message : `shutdown failed (${down.message}): the expiry watch ends the instance at its expiry`}\n`);
      }
      return outcome.exitCode;
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      s3.destroy();
      cfn.destroy();
    }
  },
};
