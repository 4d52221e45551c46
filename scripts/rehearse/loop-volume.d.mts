export interface LoopVolume {
  device: string;
  majMin: string;
  label: string;
  sizeBytes: number;
  backing: 'discard' | 'sparse';
  file: string;
  readonly punches: number;
  heldBytes(): number;
  check(): void;
  close(): void;
}
export function rehearsalDir(parent?: string): string;
export function checkRoom(dir: string, bytes: number, marginBytes?: number): number;
export function createLoopVolume(options: {
  dir: string;
  sizeBytes: number;
  backing?: 'discard' | 'sparse';
  tmpfsBytes?: number;
  punchIntervalMs?: number;
  expectedWriteBytes?: number;
  name?: string;
}): LoopVolume;
export function sweepStale(parent?: string): string[];
