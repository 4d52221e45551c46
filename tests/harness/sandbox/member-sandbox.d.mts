import type { ChildProcess } from 'node:child_process';
import type { BlkioGroup } from '../blkio.mjs';
import type { ImdsIdentity } from './imds.mjs';
import type { SignalStandIn } from './signal-standin.mjs';

export const DEFAULT_HIDE: string[];
export const DEFAULT_AWSCLI_VENV: string;

export interface MemberDevice {
  /** As the member sees it: nvme1n1 is /dev/nvme1n1. */
  name: string;
  /** The host's block device (a loop device). */
  path: string;
  /** What `nvme id-ctrl` answers: the EBS volume id without its dash. */
  serial: string;
  model?: string;
}
export interface MemberOptions {
  id: string;
  dir: string;
  userData: string;
  identity: ImdsIdentity;
  aws: SignalStandIn;
  devices?: MemberDevice[];
  group?: BlkioGroup;
  dnfFailure?: string;
  timeFactor?: number;
  binds?: { from: string; to: string; readOnly?: boolean }[];
  hide?: string[];
  upperBytes?: number;
  awscliVenv?: string;
  log?: (line: string) => void;
}
export interface MemberEnd { code: number | null; signal: NodeJS.Signals | null; stderr: string; shutdown: boolean }
export class Member {
  readonly id: string;
  /** The member's address (the host reaches its services there) and the host's end of its link. */
  readonly address: string;
  readonly hostAddress: string;
  readonly awsEndpoint: string;
  /** The one change to its environment. */
  readonly env: Record<string, string>;
  /** The host pid of its init. */
  readonly pid: number;
  readonly child: ChildProcess;
  readonly booted: Promise<{ exitCode: number; seconds: number }>;
  readonly ended: Promise<MemberEnd>;
  timings(): { sandboxReadyS: number | undefined; userDataExitS: number | undefined };
  records(): { dnf: string[]; systemctl: string[]; shutdown: string[]; init: string[] };
  readFile(path: string): string | undefined;
  exec(cmd: string, args?: string[], options?: { timeoutMs?: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  stop(): Promise<MemberEnd>;
}
export function startMember(options: MemberOptions): Promise<Member>;
