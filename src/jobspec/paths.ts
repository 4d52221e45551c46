/**
 * `filename=` and `directory=`: fio takes several names separated by ':' (a literal colon is
 * written `\:`). Several filenames are the job's files; several directories are handed out to
 * the job's instances (numjobs) in turn, as fio hands them to its clones.
 */
import { invalidValue, unsupported } from './fail.js';

/**
 * Split as fio's get_next_str: unescaped ':' separates, `\:` is a colon, empty names drop out
 * (fio skips a ':' that starts what is left, so `a::b` names a and b).
 */
export function splitFioNames(text: string): string[] {
  const names: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && text[i + 1] === ':') {
      current += ':';
      i++;
    } else if (c === ':') {
      names.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  names.push(current);
  return names.filter((n) => n !== '');
}

export const PATHS_ACCEPTED = "one path, or several separated by ':' (write a ':' inside a name as '\\:')";

/** The paths a `filename`/`directory` value names, unescaped, in order. */
export function pathList(text: string, field: string, option: 'filename' | 'directory'): string[] {
  const names = splitFioNames(text);
  if (names.length === 0) throw invalidValue(field, `'${text}' names no path`, PATHS_ACCEPTED);
  if (option === 'filename' && names.includes('-')) {
    throw unsupported(field, 'filename=- (stdin/stdout) is not supported by volbench yet', PATHS_ACCEPTED);
  }
  return names;
}
