/**
 * One AWS call's failure as ECLOUD naming the action, for every part of volbench that calls AWS
 * (fleets, reports read from S3). No SDK import here: the library entry loads none.
 */
import { VolbenchError } from '../errors.js';

const DENIED = /AccessDenied|UnauthorizedOperation|AuthorizationError|NotAuthorized/i;
const NO_CREDENTIALS = /CredentialsProviderError|Could not load credentials|Unable to locate credentials/i;

/** Whether an SDK error is AWS refusing the caller (an IAM or SCP deny), not a failure of the call. */
export function deniedError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; Code?: string };
  return DENIED.test(e?.name ?? e?.Code ?? '') || DENIED.test(e?.message ?? '');
}

/**
 * Runs one AWS call, turning its failure into ECLOUD naming the action (`cloudformation:CreateStack`):
 * what to grant when it was refused, what to configure when there were no credentials.
 */
export async function awsCall<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const e = err as { name?: string; message?: string; Code?: string };
    const name = e.name ?? e.Code ?? 'Error';
    if (NO_CREDENTIALS.test(name) || NO_CREDENTIALS.test(e.message ?? '')) {
      throw new VolbenchError('ECLOUD', `${action}: no AWS credentials (the default chain found none: environment, profile, SSO or an instance role)`, {
        field: 'credentials', accepted: 'AWS credentials, e.g. AWS_PROFILE or --profile', cause: err,
      });
    }
    if (DENIED.test(name) || DENIED.test(e.message ?? '')) {
      throw new VolbenchError('ECLOUD', `${action} was refused: grant ${action} to these credentials (${e.message ?? name})`, {
        field: action, accepted: `a principal allowed ${action}`, cause: err,
      });
    }
    throw new VolbenchError('ECLOUD', `${action} failed: ${name}: ${e.message ?? ''}`.trim(), { field: action, cause: err });
  }
}
