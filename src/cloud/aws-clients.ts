/**
 * Every AWS SDK v3 client volbench makes is made here, one way: the region given (else the
 * SDK's own: AWS_REGION, the profile's), the profile given (else AWS_PROFILE and the rest of the
 * standard credential chain: environment, shared config and SSO, the instance's or task's role),
 * one retry policy, and the endpoint given, else the SDK's own AWS_ENDPOINT_URL and
 * AWS_ENDPOINT_URL_<SERVICE>, which is how tests point every client at an emulator.
 *
 * No SDK import here: callers import their client class (dynamically, where the library entry
 * must load none) and hand it over.
 */
import { VolbenchError } from '../errors.js';

export interface AwsClientOptions {
  /** The region; default: the SDK's (AWS_REGION, then the profile's). */
  region?: string;
  /** A shared-config profile (--profile); default: the standard chain (AWS_PROFILE, ...). */
  profile?: string;
  /** One endpoint for the client (an emulator's); default: AWS_ENDPOINT_URL(_<SERVICE>), as the SDK reads them. */
  endpoint?: string;
}

/**
 * The retry policy of every client: the SDK's standard mode (exponential backoff with jitter on
 * throttling and transient errors) for up to this many attempts. A caller with a deadline gives
 * its call an abort signal; it does not get a policy of its own.
 */
export const AWS_MAX_ATTEMPTS = 5;

/** AWS's region names: us-east-1, ap-southeast-2, us-gov-west-1. */
export const AWS_REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** A region as given, checked: EINVALID_ARGS naming `field` when it is not an AWS region's name. */
export function checkAwsRegion(region: string, field = '--region'): string {
  if (!AWS_REGION_NAME.test(region)) {
    throw new VolbenchError('EINVALID_ARGS', `'${region.slice(0, 64)}' is not an AWS region`, { field, accepted: 'an AWS region, e.g. us-east-1' });
  }
  return region;
}

/** The region to work in: the one given, else AWS_REGION, else AWS_DEFAULT_REGION; refused when none. */
export function awsRegion(given: string | undefined, field = '--region', env: NodeJS.ProcessEnv = process.env): string {
  const region = given ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION);
  if (!region) throw new VolbenchError('EINVALID_ARGS', `no region: give ${field} or set AWS_REGION`, { field, accepted: 'an AWS region, e.g. us-east-1' });
  return checkAwsRegion(region, field);
}

/** Whether the clients are pointed at another endpoint than AWS's (an emulator). */
export function customEndpoint(opts: AwsClientOptions = {}, service?: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const own = service ? env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`] : undefined;
  return Boolean(opts.endpoint || own || env.AWS_ENDPOINT_URL);
}

/** The configuration every client gets; `service` adds what one service needs (S3: path-style with an emulator). */
export function awsClientConfig(opts: AwsClientOptions = {}, service?: string): Record<string, unknown> {
  return {
    ...(opts.region ? { region: opts.region } : {}),
    ...(opts.profile ? { profile: opts.profile } : {}),
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryMode: 'standard',
    // Path-style addressing works with every endpoint, emulators included.
    ...(service === 's3' ? { forcePathStyle: customEndpoint(opts, 's3'), followRegionRedirects: true } : {}),
  };
}

/** A client of `Client` (EC2Client, S3Client, ...), made the one way. */
export function awsClient<C>(Client: new (config: never) => C, opts: AwsClientOptions = {}, service?: string): C {
  return new Client(awsClientConfig(opts, service) as never);
}
