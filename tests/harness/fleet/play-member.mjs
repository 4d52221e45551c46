/**
 * One fleet member played on this host once its stack exists in moto: the instance's rendered
 * user data, identity and data volume read from moto; a loop volume of the volume's size held to
 * the catalog's model (with the instance's limits) by the blkio throttle at the rehearsal's scale;
 * the member sandbox booting it; and its Ready signal awaited as CloudFormation would, so a failed
 * boot fails the member with its log's reason.
 */
import { AttachVolumeCommand, CreateVolumeCommand, EC2Client, ModifyInstanceAttributeCommand } from '@aws-sdk/client-ec2';

import { BlkioGroup } from '../blkio.mjs';
import { specFromCatalog } from '../catalog-spec.mjs';
import { createLoopVolume } from '../loop-volume.mjs';
import { startMember } from '../sandbox/member-sandbox.mjs';
import { memberOfStack } from '../sandbox/stack-member.mjs';
import { VolumeThrottle } from '../volume-throttle.mjs';

const GiB = 2 ** 30;

/** The data volume AWS would launch from the launch template's /dev/sdf mapping, made in moto. */
async function launchDataVolume(sdk, instanceId, zone, v, stackName) {
  const ec2 = new EC2Client(sdk);
  try {
    const vol = await ec2.send(new CreateVolumeCommand({
      AvailabilityZone: zone, Size: v.sizeGiB, VolumeType: v.type, Encrypted: true,
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
function memberId(label) {
  return label.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 20).replace(/-+$/, '') || 'member';
}

function tail(text, lines = 6) {
  return (text ?? '').trim().split('\n').slice(-lines).join('\n');
}

export async function playMember({ plan, stackName, instance, aws, sdk, dir, scale, bootTimeoutMs, log }) {
  const label = plan.label;
  const say = (line) => log(`[${label}] ${line}`);
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
  const throttle = new VolumeThrottle({ group, majMin: volume.majMin, spec, scale }).start();
  say(`volume ${volume.device} (${v.sizeGiB} GiB, backing discards writes) as /dev/nvme1n1, serial ${data.serial}; ` +
    `limits ${JSON.stringify(throttle.scaledSpec.limiters.map((l) => ({ name: l.name, baseline: l.baseline, burst: l.burst })))}`);
  let member;
  const stop = async () => {
    const state = throttle.state();
    result.throttle = { events: state.events, totals: state.totals };
    if (member) {
      await member.stop().catch(() => {});
      result.records = member.records();
    }
    throttle.stop();
    // The member's processes leave its group as the kernel reaps them: a moment after they end.
    for (let i = 0; ; i++) {
      try {
        group.remove();
        break;
      } catch (err) {
        if (err.code !== 'EBUSY' || i >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    volume.close();
  };
  const result = { label, countedBytes, stop, ready: false };
  const t0 = Date.now();
  try {
    member = await startMember({
      id: memberId(label), dir, userData: m.userData, identity: m.identity, aws, group, timeFactor: scale.time,
      devices: [{ name: 'nvme1n1', path: volume.device, serial: data.serial }],
      log: say,
    });
    result.member = member;
    const signal = await aws.waitForSignal(stackName, 'Ready', bootTimeoutMs);
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    if (signal?.status === 'SUCCESS') {
      result.ready = true;
      result.boot = { signal: 'SUCCESS', seconds_to_signal: seconds };
      say(`Ready: SUCCESS (${signal.uniqueId}); answers at ${member.address}`);
    } else {
      const why = signal ? signal.reason : `no Ready signal within ${bootTimeoutMs / 1000} s`;
      const logTail = tail(member.readFile('/var/log/volbench-setup.log'));
      result.error = `boot failed: ${why}${logTail ? `; its log ends: ${logTail.replace(/\n/g, ' | ')}` : ''}`;
      result.boot = { signal: signal?.status ?? 'none', seconds_to_signal: seconds, reason: why, log_tail: logTail };
      say(result.error);
    }
  } catch (err) {
    result.error = err.message;
    say(`failed: ${err.message}`);
  }
  return result;
}
