/**
 * `volbench ebs-stats` for people: a Nitro volume's statistics page as a short table, its
 * exceeded times by the limit they name, and the latency histograms' bins that hold I/Os.
 */
import type { EbsLogPage, LatencyBin } from '../device/ebs-log-page.js';

const int = (n: number): string => n.toLocaleString('en-US');

function seconds(us: number): string {
  if (us === 0) return '0 s';
  if (us < 1e3) return `${int(us)} µs`;
  if (us < 1e6) return `${(us / 1e3).toFixed(1)} ms`;
  return us < 1e8 ? `${(us / 1e6).toFixed(2)} s` : `${int(Math.round(us / 1e6))} s`;
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

const row = (label: string, read: string, write: string): string => `  ${label.padEnd(22)}${read.padStart(14)}${write.padStart(14)}\n`;

function histogram(title: string, bins: LatencyBin[]): string {
  const used = bins.filter((b) => b.count > 0);
  if (used.length === 0) return `${title}: no I/O in its ${bins.length} bins\n`;
  const lines = used.map((b) => `  ${`${int(b.lower_us)} - ${int(b.upper_us)} µs`.padEnd(26)}${int(b.count).padStart(14)}\n`);
  return `${title} (${used.length} of ${bins.length} bins hold I/Os):\n${lines.join('')}`;
}

export function formatEbsPageText(page: EbsLogPage, device?: string): string {
  const what = page.page === 'ebs' ? 'Amazon EBS volume' : 'EC2 instance-store volume';
  const meanUs = (time: number, ops: number) => (ops > 0 ? `${int(Math.round(time / ops))} µs` : '-');
  let out = `${device ? `${device}: ` : ''}${what} statistics since attach (NVMe log page 0xD0, version ${page.version})\n`;
  out += row('', 'read', 'write');
  out += row('operations', int(page.total_read_ops), int(page.total_write_ops));
  out += row('bytes', bytes(page.total_read_bytes), bytes(page.total_write_bytes));
  out += row('time in operations', seconds(page.total_read_time), seconds(page.total_write_time));
  out += row('mean latency', meanUs(page.total_read_time, page.total_read_ops), meanUs(page.total_write_time, page.total_write_ops));
  if (page.page === 'ebs') {
    out += 'Time demand exceeded a limit:\n';
    out += `  volume IOPS               ${seconds(page.ebs_volume_performance_exceeded_iops)}\n`;
    out += `  volume throughput         ${seconds(page.ebs_volume_performance_exceeded_tp)}\n`;
    out += `  instance EBS IOPS         ${seconds(page.ec2_instance_ebs_performance_exceeded_iops)}\n`;
    out += `  instance EBS throughput   ${seconds(page.ec2_instance_ebs_performance_exceeded_tp)}\n`;
  } else {
    out += "Time demand exceeded the instance's local storage limits:\n";
    out += `  IOPS                      ${seconds(page.ec2_instance_ebs_performance_exceeded_iops)}\n`;
    out += `  throughput                ${seconds(page.ec2_instance_ebs_performance_exceeded_tp)}\n`;
  }
  out += `Queue length now: ${int(page.volume_queue_length)}\n`;
  out += histogram('Read latency', page.read_io_latency_histogram);
  out += histogram('Write latency', page.write_io_latency_histogram);
  return out;
}
