/**
 * The AWS SDK v3 clients a fleet uses, made by the one client factory (src/cloud/aws-clients.ts):
 * the fleet's region, --profile or the default credential chain, one retry policy, and
 * `AWS_ENDPOINT_URL` (or a per-service one) pointing them at an emulator in tests.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { EC2Client } from '@aws-sdk/client-ec2';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SSMClient } from '@aws-sdk/client-ssm';
import { STSClient } from '@aws-sdk/client-sts';

import { awsClient, type AwsClientOptions } from '../cloud/aws-clients.js';

export interface AwsOptions extends AwsClientOptions {
  region: string;
}

export interface FleetClients {
  cfn: CloudFormationClient;
  ec2: EC2Client;
  /** KMS: the key the volumes encrypt with, described before a stack needs it (account.ts). */
  kms: KMSClient;
  /** Service Quotas: the vCPU and IOPS quotas a plan is set against (quotas.ts). */
  quotas: ServiceQuotasClient;
  s3: S3Client;
  /** EventBridge Scheduler: the schedules that delete a fleet's stacks at its expiry. */
  scheduler: SchedulerClient;
  ssm: SSMClient;
  sts: STSClient;
  /** The region they were made for. */
  region: string;
  destroy(): void;
}

export function fleetClients(opts: AwsOptions): FleetClients {
  const clients = {
    cfn: awsClient(CloudFormationClient, opts),
    ec2: awsClient(EC2Client, opts),
    kms: awsClient(KMSClient, opts),
    quotas: awsClient(ServiceQuotasClient, opts),
    s3: awsClient(S3Client, opts, 's3'),
    scheduler: awsClient(SchedulerClient, opts),
    ssm: awsClient(SSMClient, opts),
    sts: awsClient(STSClient, opts),
  };
  return {
    ...clients,
    region: opts.region,
    destroy() {
      for (const c of Object.values(clients)) c.destroy();
    },
  };
}

export { awsCall } from '../cloud/aws-call.js';
