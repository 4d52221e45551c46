// A member's network: a namespace of its own joined to the host by a veth pair, 10.213.N.2 inside
// and 10.213.N.1 on the host. Inside, the only routes are the pair's subnet and 169.254.169.254
// (to the host), and nftables in the namespace lets out only what the instance may reach: the
// metadata service (rewritten to the host's IMDS listener) and the emulated AWS endpoint's port
// on the host; anything else is refused at once (a reset or an ICMP refusal), so a boot that
// needed the internet fails here. Connections into the member (the service it runs) are allowed.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface MemberNetwork {
  name: string;
  nsPath: string;
  hostAddress: string;
  memberAddress: string;
  hostInterface: string;
  allow(imdsPort: number, awsPorts: number[]): void;
  close(): void;
}

const NET_PREFIX = '10.213';
export const IMDS_ADDRESS = '169.254.169.254';

function run(cmd: string, args: readonly string[], input?: string): string {
  return execFileSync(cmd, args, { encoding: 'utf8', input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] }).trim();
}

/** A /24 under 10.213 that no interface on the host uses. */
function freeSubnet(): string {
  const used = run('ip', ['-o', '-4', 'addr', 'show']);
  for (let tries = 0; tries < 64; tries++) {
    const n = 1 + Math.floor(Math.random() * 250);
    if (!used.includes(` ${NET_PREFIX}.${n}.`)) return `${NET_PREFIX}.${n}`;
  }
  throw new Error(`no free ${NET_PREFIX}.N.0/24 for a member network`);
}

/**
 * Creates the namespace (named `name`, e.g. volbench-rehearsal-PID-m1) and its pair. Answers
 * { name, nsPath, hostAddress, memberAddress, hostInterface, allow(ports), close() }: call
 * allow(imdsPort, [awsPorts]) once the host's listeners have their ports, to load the rules.
 */
export function createMemberNetwork(name: string): MemberNetwork {
  if (!/^[a-z0-9-]{1,64}$/.test(name)) throw new TypeError(`network name '${name}': lower-case letters, digits, dashes`);
  const tag = randomBytes(3).toString('hex');
  const hostIf = `vbr${tag}h`;
  const memberIf = `vbr${tag}m`;
  const net = freeSubnet();
  const hostAddress = `${net}.1`;
  const memberAddress = `${net}.2`;
  run('ip', ['netns', 'add', name]);
  const close = () => {
    try {
      run('ip', ['link', 'del', hostIf]);
    } catch {
      // Gone with the namespace.
    }
    try {
      run('ip', ['netns', 'del', name]);
    } catch {
      // Already gone.
    }
  };
  try {
    run('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', memberIf]);
    run('ip', ['link', 'set', memberIf, 'netns', name]);
    run('ip', ['addr', 'add', `${hostAddress}/24`, 'dev', hostIf]);
    run('ip', ['link', 'set', hostIf, 'up']);
    const inside = (...args: string[]) => run('ip', ['-n', name, ...args]);
    inside('link', 'set', 'lo', 'up');
    inside('link', 'set', memberIf, 'name', 'eth0');
    inside('addr', 'add', `${memberAddress}/24`, 'dev', 'eth0');
    inside('link', 'set', 'eth0', 'up');
    inside('route', 'add', `${IMDS_ADDRESS}/32`, 'via', hostAddress);
    run('ip', ['netns', 'exec', name, 'sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1', 'net.ipv6.conf.default.disable_ipv6=1']);
  } catch (err) {
    close();
    throw err;
  }
  return {
    name,
    nsPath: `/run/netns/${name}`,
    hostAddress,
    memberAddress,
    hostInterface: hostIf,
    /** Loads the rules: IMDS (port 80) to the host's imdsPort, and the host's awsPorts; nothing else out. */
    allow(imdsPort, awsPorts) {
      const ports = [imdsPort, ...awsPorts].join(', ');
      const rules = `
table inet volbench_member {
  chain nat_out {
    type nat hook output priority -100; policy accept;
    ip daddr ${IMDS_ADDRESS} tcp dport 80 dnat ip to ${hostAddress}:${imdsPort}
  }
  chain out {
    type filter hook output priority 0; policy drop;
    oif "lo" accept
    ct state established,related accept
    ip daddr ${hostAddress} tcp dport { ${ports} } accept
    meta l4proto tcp reject with tcp reset
    reject with icmpx type admin-prohibited
  }
}
`;
      run('ip', ['netns', 'exec', name, 'nft', '-f', '-'], rules);
    },
    close,
  };
}
