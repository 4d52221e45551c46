/**
 * One fleet member played on this host once its stack exists in moto: the instance's rendered
 * user data, identity and data volume read from moto; a loop volume of the volume's size held to
 * the catalog's model (with the instance's limits) by the blkio throttle at the rehearsal's scale,
 * publishing the EBS statistics page a Nitro volume would answer (with the scale beside it, so
 * every result of the volume carries it); the member sandbox booting it, its volbench pointed at
 * the page by the test seam; and its signal awaited as CloudFormation's creation policy would.
 * A failed boot fails the member with its log's reason; a member that never signals (it could not
 * start, or ended first, or the boot timeout passed) fails its stack as the policy's timeout
 * would, so the study ends naming it rather than waiting.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { DescribeStackResourcesCommand, CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  AttachVolumeCommand, CreateVolumeCommand, DescribeSecurityGroupsCommand, EC2Client, ModifyInstanceAttributeCommand, type VolumeType,
} from '@aws-sdk/client-ec2';

import type { VolumeSpec } from '../../../src/cloud/index.js';
import { MEMBER_SIGNAL_RESOURCE } from '../../../src/fleet/member-agent/index.js';
import { BlkioGroup } from '../blkio.js';
import { specFromCatalog } from '../catalog-spec.js';
import { createLoopVolume } from '../loop-volume.js';
import { startMember, type Member } from '../sandbox/member-sandbox.js';
import type { SignalStandIn } from '../sandbox/signal-standin.js';
import { memberOfStack, type SdkSettings } from '../sandbox/stack-member.js';
import type { Scale } from '../throttle-model.js';
import { VolumeThrottle, type ThrottleState } from '../volume-throttle.js';
import type { Cleanup } from './cleanup.js';

const GiB = 2 ** 30;

/** A member as `fleet plan --format json` lists it. */
export interface PlannedMember { label: string; volume: VolumeSpec; suite?: string }
export interface PlayOptions {
  plan: PlannedMember;
  stackName: string;
  instance: string;
  /** The stand-in in front of moto that the member's AWS calls go through. */
  aws: SignalStandIn;
  /** moto itself, for the rehearsal's own calls. */
  sdk: SdkSettings;
  dir: string;
  scale: Scale;
  bootTimeoutMs: number;
  log: (line: string) => void;
  /** Where its stop() is registered, so a rehearsal that ends early (a signal) ends the member too. */
  cleanup?: Cleanup;
}
/** What became of a member: booted (`ready`) or not (`error`), and `stop()` to end it and its volume. */
export interface PlayedMember {
  label: string;
  countedBytes: number | undefined;
  stop: () => Promise<void>;
  ready: boolean;
  member?: Member;
  boot?: { signal: string; seconds_to_signal: number; reason?: string; log_tail?: string };
  /** Its security group's inbound rules, as moto holds them (an autonomous member has none). */
  inboundRules?: number;
  /** How the member ended, once it did: shut itself down (an autonomous member's end), or stopped. */
  ended?: { shutdown: boolean; seconds: number };
  error?: string;
  throttle?: Pick<ThrottleState, 'events' | 'totals'>;
  records?: ReturnType<Member['records']>;
}

/** The data volume AWS would launch from the launch template's /dev/sdf mapping, made in moto. */
async function launchDataVolume(sdk: SdkSettings, instanceId: string, zone: string, v: VolumeSpec, stackName: string): Promise<void> {
  const ec2 = new EC2Client(sdk);
  try {
    const vol = await ec2.send(new CreateVolumeCommand({
      AvailabilityZone: zone, Size: v.sizeGiB, VolumeType: v.type as VolumeType, Encrypted: true,
      ...(v.iops ? { Iops: v.iops } : {}), ...(v.throughputMiBps ? { Throughput: v.throughputMiBps } : {}),
      TagSpecifications: [{ ResourceType: 'volume', Tags: [{ Key: 'aws:cloudformation:stack-name', Value: stackName }, { Key: 'volbench:role', Value: 'data' }] }],
    }));
    await ec2.send(new AttachVolumeCommand({ InstanceId: instanceId, VolumeId: vol.VolumeId, Device: '/dev/sdf' }));
    await ec2.send(new ModifyInstanceAttributeCommand({ InstanceId: instanceId, BlockDeviceMappings: [{ DeviceName: '/dev/sdf', Ebs: { DeleteOnTermination: true } }] }));
  } finally {
    ec2.destroy();
  }
}

/** A sandbox id ([a-z0-9-]{1,20}) from a label. */
function memberId(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 20).replace(/-+$/, '') || 'member';
}

/** How many inbound rules the stack's security group has: every CIDR, prefix list and group of every permission. */
async function inboundRules(sdk: SdkSettings, stackName: string): Promise<number | undefined> {
  const cfn = new CloudFormationClient(sdk);
  const ec2 = new EC2Client(sdk);
  try {
    const resources = (await cfn.send(new DescribeStackResourcesCommand({ StackName: stackName }))).StackResources ?? [];
    const ids = resources.filter((r) => r.ResourceType === 'AWS::EC2::SecurityGroup' && r.PhysicalResourceId).map((r) => r.PhysicalResourceId!);
    if (ids.length === 0) return undefined;
    const groups = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: ids }))).SecurityGroups ?? [];
    return groups.flatMap((g) => g.IpPermissions ?? [])
      .reduce((n, p) => n + (p.IpRanges?.length ?? 0) + (p.Ipv6Ranges?.length ?? 0) + (p.PrefixListIds?.length ?? 0) + (p.UserIdGroupPairs?.length ?? 0), 0);
  } finally {
    cfn.destroy();
    ec2.destroy();
  }
}

function tail(text: string | undefined, lines = 6): string {
  return (text ?? '').trim().split('\n').slice(-lines).join('\n');
}

export async function playMember({ plan, stackName, instance, aws, sdk, dir, scale, bootTimeoutMs, log, cleanup }: PlayOptions): Promise<PlayedMember> {
  const label = plan.label;
  const say = (line: string) => log(`[${label}] ${line}`);
  const v = plan.volume;
  let m = await memberOfStack({ aws: sdk, stackName });
  // The data volume is the launch template's mapping: AWS launches it with the instance, moto
  // does not, so it is made in moto here as AWS would (attached as /dev/sdf, deleted with the instance).
  if (!m.volumes.some((x) => x.device === '/dev/sdf')) {
    await launchDataVolume(sdk, m.instanceId, m.identity.availabilityZone, v, stackName);
    m = await memberOfStack({ aws: sdk, stackName });
  }
  const data = m.volumes.find((x) => x.device === '/dev/sdf');
  if (!data) throw new Error(`${stackName}: no data volume in moto`);
  const spec = specFromCatalog({ type: v.type, sizeGiB: v.sizeGiB, ...(v.iops ? { iops: v.iops } : {}), ...(v.throughputMiBps ? { throughputMiBps: v.throughputMiBps } : {}) }, instance);
  const countedBytes = spec.limiters[0].countedIoBytes;
  const volume = createLoopVolume({ dir, sizeBytes: v.sizeGiB * GiB, name: memberId(label) });
  const group = BlkioGroup.create(memberId(label));
  // The member's own directory of pages (only its volume's): this user's, mode 0700, as the seam requires.
  const pages = join(dir, 'ebs-stats', memberId(label));
  mkdirSync(pages, { recursive: true, mode: 0o700 });
  const throttle = new VolumeThrottle({ group, majMin: volume.majMin, spec, scale, ebsStats: { dir: pages } }).start();
  say(`volume ${volume.device} (${volume.majMin}, ${v.sizeGiB} GiB, backing discards writes) as /dev/nvme1n1, serial ${data.serial}; ` +
    `limits ${JSON.stringify(throttle.scaledSpec.limiters.map((l) => ({ name: l.name, baseline: l.baseline, burst: l.burst })))}; ` +
    `its EBS statistics page in ${pages}`);
  let member: Member | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= stopOnce());
  const stopOnce = async () => {
    const state = throttle.state();
    result.throttle = { events: state.events, totals: state.totals };
    if (member) {
      await member.stop().catch(() => {});
      result.records = member.records();
    }
    throttle.stop();
    rmSync(pages, { recursive: true, force: true });
    // The member's processes leave its group as the kernel reaps them: a moment after they end.
    for (let i = 0; ; i++) {
      try {
        group.remove();
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || i >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    volume.close();
  };
  const result: PlayedMember = { label, countedBytes, stop, ready: false };
  cleanup?.add(`member ${label}, its throttle and volume`, stop);
  result.inboundRules = await inboundRules(sdk, stackName).catch(() => undefined);
  const t0 = Date.now();
  const failBoot = async (why: string, logTail = '') => {
    result.error = `boot failed: ${why}${logTail ? `; its log ends: ${logTail.replace(/\n/g, ' | ')}` : ''}`;
    // As the creation policy's timeout would: the stack fails, and the study says why.
    const record = await aws.fail(stackName, why).catch(() => undefined);
    result.boot = { signal: record?.status ?? 'none', seconds_to_signal: Math.round((Date.now() - t0) / 100) / 10, reason: record?.reason ?? why, ...(logTail ? { log_tail: logTail } : {}) };
    say(result.error);
  };
  try {
    member = await startMember({
      id: memberId(label), dir, userData: m.userData, identity: m.identity, aws, group, timeFactor: scale.time,
      devices: [{ name: 'nvme1n1', path: volume.device, serial: data.serial }], emulatedNvmeDir: pages,
      log: say,
    });
  } catch (err) {
    await failBoot(`the member could not start: ${(err as Error).message}`);
    return result;
  }
  result.member = member;
  const started = member;
  void started.ended.then((e) => {
    result.ended = { shutdown: e.shutdown, seconds: Math.round((Date.now() - t0) / 100) / 10 };
    if (e.shutdown) say(`shut itself down after ${result.ended.seconds} s`);
  });
  // A member that ends before it signals will never signal: no need to wait out the timeout.
  const endedFirst = started.ended.then(() => 'ended' as const);
  const signal = await Promise.race([aws.waitForSignal(stackName, MEMBER_SIGNAL_RESOURCE, bootTimeoutMs), endedFirst]);
  const seconds = Math.round((Date.now() - t0) / 100) / 10;
  const record = signal === 'ended' ? aws.signals(stackName)[0] : signal;
  if (record?.status === 'SUCCESS') {
    result.ready = true;
    result.boot = { signal: 'SUCCESS', seconds_to_signal: seconds };
    say(`${record.resource}: SUCCESS (${record.uniqueId}); at ${started.address}`);
  } else if (record) {
    const logTail = tail(started.readFile('/var/log/volbench-setup.log'));
    result.error = `boot failed: ${record.reason}${logTail ? `; its log ends: ${logTail.replace(/\n/g, ' | ')}` : ''}`;
    result.boot = { signal: record.status, seconds_to_signal: seconds, reason: record.reason, log_tail: logTail };
    say(result.error);
  } else {
    const why = signal === 'ended' ? 'the member ended before it signalled' : `no signal within ${bootTimeoutMs / 1000} s`;
    await failBoot(why, tail(started.readFile('/var/log/volbench-setup.log')));
  }
  return result;
}
