/**
 * AWS SDK v3 clients for fleet runs, on the default credential chain (environment, shared
 * config and SSO profiles, the instance's or task's role), with the SDK's standard retries;
 * `AWS_ENDPOINT_URL` (or a per-service one) points them at an emulator in tests.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { STSClient } from '@aws-sdk/client-sts';

export interface AwsOptions {
  region: string;
  /** A shared-config profile (--profile); the default chain otherwise. */
  profile?: string;
}

export interface FleetClients {
  cfn: CloudFormationClient;
  ec2: EC2Client;
  s3: S3Client;
  ssm: SSMClient;
  sts: STSClient;
  destroy(): void;
}

export function fleetClients(opts: AwsOptions): FleetClients {
  const config = { region: opts.region, ...(opts.profile ? { profile: opts.profile } : {}), maxAttempts: 5 };
  const clients = {
    cfn: new CloudFormationClient(config),
    ec2: new EC2Client(config),
    // Path-style addressing works with every endpoint, emulators included.
    s3: new S3Client({ ...config, forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL || process.env.AWS_ENDPOINT_URL_S3) }),
    ssm: new SSMClient(config),
    sts: new STSClient(config),
  };
  return {
    ...clients,
    destroy() {
      for (const c of Object.values(clients)) c.destroy();
    },
  };
}

export { awsCall } from '../cloud/aws-call.js';
