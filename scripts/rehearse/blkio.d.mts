import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { KernelLimits } from './throttle-model.mjs';

export const BLKIO_ROOT: string;
export function deviceNumbers(devicePath: string): string;
export function deviceStat(majMin: string): { read: { ios: number; bytes: number }; write: { ios: number; bytes: number } };
export interface Counters { read: { bios: number; bytes: number }; write: { bios: number; bytes: number } }
export class BlkioGroup {
  static create(name: string): BlkioGroup;
  static stale(alive: (pid: number) => boolean): BlkioGroup[];
  readonly dir: string;
  addPid(pid: number): void;
  spawn(cmd: string, args?: string[], options?: SpawnOptions): ChildProcess;
  pids(): number[];
  count(majMin: string): void;
  setLimits(majMin: string, limits: Partial<KernelLimits>): void;
  limits(majMin: string): KernelLimits;
  counters(majMin: string): Counters;
  remove(): void;
}
