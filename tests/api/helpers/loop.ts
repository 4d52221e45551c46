/**
 * Loop devices for tests that need a second physical device or a block device root. The image
 * lives on /dev/shm; release() detaches the device and removes the image.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Why loop devices cannot be used here, or null when they can. */
export function loopUnavailableReason(): string | null {
  if (process.getuid?.() !== 0) return 'loop devices need root';
  try {
    run('losetup', ['--version']);
  } catch {
    return 'losetup is not installed';
  }
  return null;
}

export interface LoopDevice {
  device: string;
  release(): void;
}

export function attachLoop(sizeBytes: number): LoopDevice {
  const dir = mkdtempSync(join('/dev/shm', `volbench-api-loop-${process.pid}-`));
  const image = join(dir, 'disk.img');
  const fd = openSync(image, 'w');
  ftruncateSync(fd, sizeBytes);
  closeSync(fd);
  const device = run('losetup', ['-f', '--show', image]);
  return {
    device,
    release() {
      run('losetup', ['-d', device]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
