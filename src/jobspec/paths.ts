/**
 * `filename=` and `directory=`: fio takes several names separated by ':' (a literal colon is
 * written `\:`). volbench runs each job on one file or device, so it takes one name.
 */
import { invalidValue, unsupported } from './fail.js';

/** Split as fio's get_next_str: unescaped ':' separates, `\:` is a colon, empty names drop out. */
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

/** The one path a `filename`/`directory` value names, unescaped. */
export function singlePath(text: string, field: string, option: 'filename' | 'directory'): string {
  const accepted = `one path (write a ':' inside it as '\\:')`;
  const names = splitFioNames(text);
  if (names.length > 1) {
    const what = option === 'filename' ? 'files' : 'directories';
    throw unsupported(field, `several ${what} ('${text}') are not supported by volbench yet`, accepted);
  }
  if (names.length === 0) throw invalidValue(field, `'${text}' names no path`, accepted);
  if (option === 'filename' && names[0] === '-') {
    throw unsupported(field, `filename=- (stdin/stdout) is not supported by volbench yet`, accepted);
  }
  return names[0];
}
