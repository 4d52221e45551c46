/**
 * Creating a fleet's stacks (infra/cloudformation/instance.yaml, one per volume), in parallel,
 * waiting on CloudFormation; a fleet that could not be made all is torn down (down.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CreateStackCommand, DescribeStackEventsCommand, DescribeStacksCommand, waitUntilStackCreateComplete, type Parameter,
} from '@aws-sdk/client-cloudformation';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';

import { VolbenchError } from '../errors.js';
import { awsCall, type FleetClients } from './aws.js';
import { bundleArch, instanceArchitecture, type Architecture } from './architecture.js';
import { fleetCertificate } from './certificate.js';
import { fleetDown } from './down.js';
import { instanceIdOf, memberEndpoint } from './member-stacks.js';
import { FLEET_TAG, tlsKeyParameterName, tokenParameterName } from './names.js';
import type { FleetPlan } from './plan.js';
import { preflight } from './preflight.js';
import { defaultTtlSec, expiresAt, EXPIRES_TAG } from './ttl.js';
import { saveState, type FleetState } from './state.js';

export interface UpOptions {
  clients: FleetClients;
  stateDir: string;
  /** Bucket for results, the fleet's state, the bundle and the certificate. */
  bucket: string;
  /** The network allowed to reach the services (CIDR). */
  allowedCidr: string;
  /** The volbench bundle (`npm run bundle -- --arch`) for the instance type's architecture. */
  bundleFile: string;
  subnetId?: string;
  /** An existing instance profile for the members: no IAM resource is created. */
  instanceProfile?: string;
  /** Seconds the fleet may live (default: the plan's duration twice plus 30 minutes). */
  ttlSec?: number;
  /** The clock for the expiry (tests). */
  now?: Date;
  /** The longest wait for a stack, in seconds (default 40 min). */
  maxWaitSec?: number;
  /** Stops waiting for the stacks: the fleet is then torn down. */
  signal?: AbortSignal;
  /** Told the state as soon as it exists (a signal's teardown needs it). */
  onState?: (state: FleetState) => void;
  log?: (line: string) => void;
}

export { tlsKeyParameterName, tokenParameterName };

export function templateBody(): string {
  return readFileSync(new URL('../../infra/cloudformation/instance.yaml', import.meta.url), 'utf8');
}

const p = (ParameterKey: string, ParameterValue: string): Parameter => ({ ParameterKey, ParameterValue });

/** Why a stack failed: CloudFormation's reason on its first failed resource. */
async function failureReason(clients: FleetClients, stackName: string): Promise<string> {
  try {
    const out = await clients.cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
    const failed = (out.StackEvents ?? []).filter((e) => /FAILED/.test(e.ResourceStatus ?? '') && e.ResourceStatusReason);
    const first = failed[failed.length - 1] ?? failed[0];
    if (first) return `${first.LogicalResourceId}: ${first.ResourceStatusReason}`;
    const stack = await clients.cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    return stack.Stacks?.[0]?.StackStatusReason ?? stack.Stacks?.[0]?.StackStatus ?? 'unknown';
  } catch (err) {
    return (err as Error).message;
  }
}

/** The bundle's bytes and SHA-256, refused when its name says another architecture. */
function readBundle(file: string, arch: Architecture): { body: Buffer; sha256: string; key: string } {
  const want = bundleArch(arch);
  const name = basename(file);
  const said = /-linux-(x64|arm64)\.tar\.gz$/.exec(name)?.[1];
  if (!name.endsWith('.tar.gz') || (said !== undefined && said !== want)) {
    throw new VolbenchError('EINVALID_ARGS', `--package ${name}: the members are ${arch}; give the ${want} bundle (npm run bundle -- --arch ${want})`, {
      field: '--package', accepted: `volbench-VERSION-linux-${want}.tar.gz`,
    });
  }
  const body = readFileSync(file);
  return { body, sha256: createHash('sha256').update(body).digest('hex'), key: name };
}

const tags = (fleetId: string, expires: string) => [{ Key: FLEET_TAG, Value: fleetId }, { Key: EXPIRES_TAG, Value: expires }];

/** The secrets and objects every member reads: a token each, the certificate and its key, the bundle. */
async function putShared(plan: FleetPlan, state: FleetState, opts: UpOptions, arch: Architecture): Promise<{ bundleKey: string; sha256: string; certKey: string }> {
  const { clients } = opts;
  const expires = state.expiresAt!;
  const secret = (Name: string, Value: string, Description: string) => awsCall('ssm:PutParameter', () => clients.ssm.send(new PutParameterCommand({
    Name, Type: 'SecureString', Value, Description, Tags: tags(plan.fleetId, expires),
  })));
  for (const m of state.members) {
    m.tokenParameter = tokenParameterName(plan.fleetId, m.label);
    await secret(m.tokenParameter, randomBytes(32).toString('base64url'), `volbench fleet ${plan.fleetId}: ${m.label}'s bearer token`);
  }
  const cert = fleetCertificate({ commonName: `volbench ${plan.fleetId}`, notAfter: new Date(expires) });
  state.tlsKeyParameter = tlsKeyParameterName(plan.fleetId);
  state.tlsFingerprint = cert.fingerprint;
  await secret(state.tlsKeyParameter, cert.key, `volbench fleet ${plan.fleetId}: its members' TLS key`);
  const bundle = readBundle(opts.bundleFile, arch);
  const bundleKey = `${plan.fleetId}/bundle/${bundle.key}`;
  const certKey = `${plan.fleetId}/tls.crt`;
  state.objects = [bundleKey, certKey];
  await saveState(state, opts.stateDir, clients);
  const put = (Key: string, Body: Buffer | string) => awsCall('s3:PutObject', () => clients.s3.send(new PutObjectCommand({
    Bucket: opts.bucket, Key, Body, Tagging: `volbench%3Afleet=${plan.fleetId}&volbench%3Aexpires=${encodeURIComponent(expires)}`,
  })));
  await put(certKey, cert.cert);
  await put(bundleKey, bundle.body);
  return { bundleKey, sha256: bundle.sha256, certKey };
}

/**
 * Seconds serve may run one workload: the fleet's life. The expiry is the real bound, and
 * `fleet run --suite/--job/--ttl` may give a member a longer workload than the plan's: a
 * runtime cap set from the plan would refuse it after --ttl had extended the fleet.
 */
function maxRuntimeSeconds(ttlSec: number): number {
  return Math.max(600, ttlSec);
}

/**
 * Creates the fleet: preflight (nothing is created when it refuses), a token per member and the
 * certificate's key in SSM, the bundle and certificate in S3, one stack per volume. A stack that
 * fails takes the whole fleet down (with CloudFormation's reason in the error).
 */
export async function fleetUp(plan: FleetPlan, opts: UpOptions): Promise<FleetState> {
  const { clients } = opts;
  const log = opts.log ?? (() => {});
  const who = await awsCall('sts:GetCallerIdentity', () => clients.sts.send(new GetCallerIdentityCommand({})));
  const arch = instanceArchitecture(plan.instanceType);
  const where = await preflight({ clients, region: plan.region, instanceType: plan.instanceType, bucket: opts.bucket, subnetId: opts.subnetId, accountId: who.Account });
  const ttlSec = opts.ttlSec ?? defaultTtlSec(plan.hours);
  const state: FleetState = {
    fleetId: plan.fleetId,
    region: plan.region,
    createdAt: (opts.now ?? new Date()).toISOString(),
    status: 'creating',
    plan,
    bucket: opts.bucket,
    expiresAt: expiresAt(opts.now ?? new Date(), ttlSec),
    members: plan.members.map((m) => ({ label: m.label, stackName: m.stackName, status: 'creating' })),
  };
  opts.onState?.(state);
  await saveState(state, opts.stateDir, clients);
  try {
    const shared = await putShared(plan, state, opts, arch);
    const body = templateBody();
    log(`creating ${plan.members.length} stacks (${arch}, in ${where.availabilityZone}, expiring ${state.expiresAt})`);
    await Promise.all(plan.members.map(async (m, i) => {
      const v = m.volume;
      const member = state.members[i];
      const parameters = [
        p('FleetId', plan.fleetId), p('VolumeLabel', m.label), p('InstanceType', plan.instanceType), p('Architecture', arch),
        p('ExpiresAt', state.expiresAt!), p('AllowedCidr', opts.allowedCidr), p('VolumeType', v.type), p('VolumeSize', String(v.sizeGiB || 1)),
        p('VolumeIops', String(v.iops ?? 0)), p('VolumeThroughput', String(v.throughputMiBps ?? 0)),
        p('TokenParameterName', member.tokenParameter!), p('TlsKeyParameterName', state.tlsKeyParameter!), p('TlsCertKey', shared.certKey),
        p('TlsFingerprint', state.tlsFingerprint!),
        p('ResultsBucket', opts.bucket),
        p('PackageBucket', opts.bucket), p('PackageKey', shared.bundleKey), p('PackageSha256', shared.sha256),
        p('SubnetId', where.subnetId), p('VpcId', where.vpcId), p('PublicAddress', String(where.publicAddress)),
        p('MaxSizeBytes', '0'), p('MaxRuntimeSeconds', String(maxRuntimeSeconds(ttlSec))),
        ...(where.kmsKeyArn ? [p('PackageKmsKeyArn', where.kmsKeyArn)] : []),
        ...(opts.instanceProfile ? [p('InstanceProfileName', opts.instanceProfile)] : []),
      ];
      if (opts.signal?.aborted) {
        member.status = 'failed';
        member.reason = 'interrupted before its stack was created';
        return;
      }
      try {
        await awsCall('cloudformation:CreateStack', () => clients.cfn.send(new CreateStackCommand({
          // CAPABILITY_IAM always: the template holds the role and profile, if only under a
          // condition, and CloudFormation asks for it on what the template contains. The token
          // makes the SDK's retry of a create whose answer was lost the same request.
          StackName: m.stackName, TemplateBody: body, Parameters: parameters, Capabilities: ['CAPABILITY_IAM'],
          ClientRequestToken: `${m.stackName}-create`.slice(0, 128),
          OnFailure: 'DO_NOTHING', Tags: [...tags(plan.fleetId, state.expiresAt!), { Key: 'volbench:volume', Value: m.label }],
        })));
      } catch (err) {
        // Refused before it existed (a bad subnet, a permission): the reason is the call's.
        member.status = 'failed';
        member.reason = (err as Error).message;
        log(`${m.label}: ${member.reason}`);
        return;
      }
      try {
        await waitUntilStackCreateComplete({
          client: clients.cfn, maxWaitTime: opts.maxWaitSec ?? 2400, minDelay: 2, maxDelay: 15, abortSignal: opts.signal,
        }, { StackName: m.stackName });
      } catch {
        member.status = 'failed';
        member.reason = opts.signal?.aborted ? 'interrupted' : await failureReason(clients, m.stackName);
        log(`${m.label}: stack ${m.stackName} failed: ${member.reason}`);
        return;
      }
      let outputs: Record<string, string>;
      try {
        const out = await awsCall('cloudformation:DescribeStacks', () => clients.cfn.send(new DescribeStacksCommand({ StackName: m.stackName })));
        outputs = Object.fromEntries((out.Stacks?.[0]?.Outputs ?? []).filter((o) => o.OutputValue !== undefined).map((o) => [o.OutputKey, o.OutputValue!]));
      } catch (err) {
        // One member's failure, not the fleet's: the others' waiters are still running.
        member.status = 'failed';
        member.reason = `its outputs could not be read: ${(err as Error).message}`;
        log(`${m.label}: ${member.reason}`);
        return;
      }
      // A member without a public address answers inside the VPC only (a VPN, an SSM port forward).
      // Kept as a record only if it is a URL: `run` asks the stack again, and refuses it there.
      let endpoint: string | undefined;
      try {
        endpoint = memberEndpoint({ stackName: m.stackName, outputs });
      } catch (err) {
        log(`${m.label}: ${(err as Error).message}`);
      }
      Object.assign(member, { status: 'created', endpoint, instanceId: instanceIdOf(outputs.InstanceId) });
      log(`${m.label}: up at ${endpoint ?? '(no usable endpoint output)'}`);
    }));
  } catch (err) {
    state.status = 'failed';
    await saveState(state, opts.stateDir, clients).catch(() => {});
    await fleetDown(state, { clients, stateDir: opts.stateDir, log }).catch(() => {});
    throw err;
  }
  const failed = state.members.filter((m) => m.status === 'failed');
  if (failed.length) {
    state.status = 'failed';
    await saveState(state, opts.stateDir, clients);
    log(`tearing the fleet down: ${failed.length} stack(s) failed`);
    await fleetDown(state, { clients, stateDir: opts.stateDir, log });
    throw new VolbenchError('ECLOUD', `fleet ${plan.fleetId} could not be created: ${failed.map((m) => `${m.label}: ${m.reason}`).join('; ')}; ` +
      'everything it created was deleted', { field: 'cloudformation:CreateStack' });
  }
  state.status = 'up';
  await saveState(state, opts.stateDir, clients);
  return state;
}
