/**
 * The end of an autonomous member: once done.json is written, the instance shuts itself down,
 * and its `InstanceInitiatedShutdownBehavior: terminate` ends it and its volumes, whatever the
 * controller does. `shutdown -h now`, as the expiry watch does it; its failure is the caller's to
 * report (the expiry watch still ends the instance at its expiry).
 */
import { spawnSync } from 'node:child_process';

export function shutdownHost(): { ok: boolean; message: string } {
  const out = spawnSync('shutdown', ['-h', 'now'], { encoding: 'utf8', timeout: 30_000 });
  if (out.error) return { ok: false, message: out.error.message };
  if (out.status !== 0) return { ok: false, message: `shutdown exited ${out.status}: ${(out.stderr ?? '').trim().split('\n').pop() ?? ''}` };
  return { ok: true, message: 'shutting down' };
}
