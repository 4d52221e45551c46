/**
 * member.log: the member's own account of its study, a line per step, for a reader (never
 * parsed). Each line also goes to `echo` (the unit's journal on the instance). Held under the
 * size the study reads of it: past that, the first lines and the last are kept and the middle is
 * counted, as a person reading a failure wants its start and its end.
 */
import { STUDY_OBJECT_MAX_BYTES } from '../../api/study-objects.js';

const HEAD_BYTES = STUDY_OBJECT_MAX_BYTES.log / 2;
const TAIL_BYTES = STUDY_OBJECT_MAX_BYTES.log / 2 - 4096;
const MAX_LINE = 4000;

export class MemberLog {
  private readonly head: string[] = [];
  private headBytes = 0;
  private tail: string[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly echo: (line: string) => void = () => {}, private readonly now: () => Date = () => new Date()) {}

  line(text: string): void {
    const line = `${this.now().toISOString()} ${text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}…` : text}\n`;
    this.echo(line.slice(0, -1));
    const bytes = Buffer.byteLength(line);
    if (this.headBytes + bytes <= HEAD_BYTES && this.tail.length === 0) {
      this.head.push(line);
      this.headBytes += bytes;
      return;
    }
    this.tail.push(line);
    this.tailBytes += bytes;
    while (this.tailBytes > TAIL_BYTES && this.tail.length > 1) {
      this.tailBytes -= Buffer.byteLength(this.tail.shift()!);
      this.dropped++;
    }
  }

  text(): string {
    const gap = this.dropped ? [`… ${this.dropped} line(s) left out …\n`] : [];
    return [...this.head, ...gap, ...this.tail].join('');
  }
}
