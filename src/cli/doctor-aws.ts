/**
 * `volbench doctor --aws`: the credentials and the region, asked of AWS itself through the one
 * client factory and the standard credential chain (environment, profile, SSO, an instance's or
 * container's role): STS GetCallerIdentity says whose they are. Loaded only with --aws.
 */
import { awsClient, awsRegion } from '../cloud/aws-clients.js';
import { awsCall } from '../cloud/aws-call.js';
import type { Check } from './doctor-checks.js';

/** How long GetCallerIdentity may take (its retries included) before doctor says it did not answer. */
const STS_DEADLINE_MS = 20_000;

export async function awsChecks(opts: { region?: string; profile?: string }): Promise<Check[]> {
  let region: string;
  try {
    region = awsRegion(opts.region);
  } catch (err) {
    return [{ verdict: 'fail', subject: 'AWS region', text: (err as Error).message, todo: 'set AWS_REGION, or give --region' }];
  }
  const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
  const sts = awsClient(STSClient, { region, profile: opts.profile });
  try {
    const who = await awsCall('sts:GetCallerIdentity', () =>
      sts.send(new GetCallerIdentityCommand({}), { abortSignal: AbortSignal.timeout(STS_DEADLINE_MS) }));
    return [
      { verdict: 'ok', subject: 'AWS region', text: region },
      { verdict: 'ok', subject: 'AWS', text: `credentials of ${who.Arn ?? 'an unnamed principal'} (account ${who.Account ?? '?'})` },
    ];
  } catch (err) {
    return [
      { verdict: 'ok', subject: 'AWS region', text: region },
      { verdict: 'fail', subject: 'AWS', text: (err as Error).message, todo: 'configure credentials (aws configure, AWS_PROFILE, --profile, or an instance role) that may call sts:GetCallerIdentity' },
    ];
  } finally {
    sts.destroy();
  }
}
