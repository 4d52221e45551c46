import { Writable } from 'node:stream';

/**
 * What a terminal shows after it was sent `text`: enough of a VT100 for what volbench writes to
 * a terminal (carriage return, newline, erase line \x1b[2K, cursor to a previous line \x1b[nF,
 * erase below \x1b[J). Any other escape fails the reading, so a test sees when the output
 * changes shape. Lines are not wrapped: the writer keeps them within the width.
 */
export function screen(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (s: string): void => {
    const line = lines[row] ?? '';
    lines[row] = line.slice(0, col).padEnd(col) + s + line.slice(col + s.length);
    col += s.length;
  };
  for (let i = 0; i < text.length; ) {
    const esc = /^\x1b\[(\d*)([A-Za-z])/.exec(text.slice(i, i + 12));
    if (esc) {
      const n = esc[1] === '' ? 1 : Number(esc[1]);
      if (esc[2] === 'K' && esc[1] === '2') lines[row] = '';
      else if (esc[2] === 'F') [row, col] = [Math.max(0, row - n), 0];
      else if (esc[2] === 'J' && (esc[1] === '' || esc[1] === '0')) lines.splice(row + 1), (lines[row] = (lines[row] ?? '').slice(0, col));
      else throw new Error(`an escape this reader does not know: ${JSON.stringify(esc[0])}`);
      i += esc[0].length;
      continue;
    }
    const c = text[i++];
    if (c === '\r') col = 0;
    else if (c === '\n') {
      row++;
      col = 0;
      lines[row] ??= '';
    } else put(c);
  }
  return lines.map((l) => l.trimEnd());
}

/** A stream that keeps what it is sent, as a terminal `columns` wide or as a pipe. */
export function captured(isTTY: boolean, columns = 100): NodeJS.WriteStream & { text: string } {
  const out = new Writable({
    write(chunk, _enc, done) {
      out.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  out.text = '';
  return Object.assign(out, { isTTY, columns }) as unknown as NodeJS.WriteStream & { text: string };
}
