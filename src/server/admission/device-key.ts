/**
 * The queue key of a target: runs with a key in common never run together, because two runs on
 * one device spoil both measurements. The key is the whole disk behind the path (so partitions,
 * filesystems on them and the raw device share one), the mount for device-less filesystems
 * (tmpfs), and the path itself when neither is known.
 */
import { identifyTarget } from '../../device/index.js';

export async function queueKeyOf(path: string): Promise<string> {
  const id = await identifyTarget(path);
  if (id.disk !== null) return `disk:${id.disk}`;
  if (id.device !== null) return `disk:${id.device}`;
  if (id.mountPoint !== null) return `mount:${id.mountPoint}`;
  return `path:${path}`;
}
