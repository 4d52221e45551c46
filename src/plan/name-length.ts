/**
 * The kernel's limits on names (NAME_MAX bytes per component, PATH_MAX in all), checked on the
 * paths volbench derives (a job's default file `<name>.<instance>.0`, a log `<prefix>_bw.1.log`)
 * before any of them is resolved: otherwise realpath's ENAMETOOLONG surfaces as a target that
 * "cannot be resolved", blamed on whatever option put the file in its directory.
 */
import type { JobOptions } from '../jobspec/types.js';
import { VolbenchError } from '../errors.js';

export const NAME_MAX_BYTES = 255;
/** PATH_MAX counts the terminating NUL. */
export const PATH_MAX_BYTES = 4096;

const ACCEPTED = `file names of at most ${NAME_MAX_BYTES} bytes, paths of at most ${PATH_MAX_BYTES - 1}`;

function shown(text: string): string {
  return text.length > 48 ? `${text.slice(0, 24)}…${text.slice(-16)}` : text;
}

/**
 * Throws ETARGET when `path` is longer than the kernel takes: a last component over NAME_MAX
 * is `nameField`'s doing, a directory component over it or the whole path over PATH_MAX
 * `dirField`'s.
 */
export function checkNameLength(path: string, nameField: string, dirField: string): void {
  const parts = path.split('/');
  const name = parts.pop() ?? '';
  const nameBytes = Buffer.byteLength(name);
  if (nameBytes > NAME_MAX_BYTES) {
    throw new VolbenchError('ETARGET', `the file name ${shown(name)} is ${nameBytes} bytes long, more than the ${NAME_MAX_BYTES} a file name may have`,
      { field: nameField, path, accepted: ACCEPTED });
  }
  const long = parts.find((p) => Buffer.byteLength(p) > NAME_MAX_BYTES);
  if (long !== undefined) {
    throw new VolbenchError('ETARGET', `the directory name ${shown(long)} in ${shown(path)} is ${Buffer.byteLength(long)} bytes long, more than ${NAME_MAX_BYTES}`,
      { field: dirField, path, accepted: ACCEPTED });
  }
  const bytes = Buffer.byteLength(path);
  if (bytes >= PATH_MAX_BYTES) {
    throw new VolbenchError('ETARGET', `the path ${shown(path)} is ${bytes} bytes long, more than ${PATH_MAX_BYTES - 1}`,
      { field: dirField, path, accepted: ACCEPTED });
  }
}

/**
 * A job instance's target path checked for length, blamed on the option that made it: the job's
 * name when fio names the file after it, else filename; directory for the directories.
 */
export function checkInstanceNameLength(o: JobOptions, path: string, field: (option: 'name' | 'filename' | 'directory') => string): void {
  const nameField = field(o.filename === undefined ? 'name' : 'filename');
  const dirField = field(o.directory === undefined && o.filename !== undefined ? 'filename' : 'directory');
  checkNameLength(path, nameField, dirField);
}
