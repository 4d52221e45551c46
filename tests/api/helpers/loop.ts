/**
 * Loop devices for tests that need a second physical device or a block device root: a thin
 * wrapper over the shared target fixtures. The image lives on /dev/shm; release() detaches the
 * device and removes the image.
 */
import { TargetFixtures } from '../../helpers/target-fixtures.js';

export interface LoopDevice {
  device: string;
  release(): void;
}

export function attachLoop(sizeBytes: number): LoopDevice {
  const fixtures = new TargetFixtures('api-loop', '/dev/shm');
  try {
    const device = fixtures.attachLoop(fixtures.image('disk.img', sizeBytes));
    return { device, release: () => fixtures.release() };
  } catch (err) {
    fixtures.release();
    throw err;
  }
}
