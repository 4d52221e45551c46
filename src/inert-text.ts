/**
 * Text from somewhere volbench does not control (what a member or a bucket's writer put in an
 * object, a result's job names) made inert where a person reads it: every control character
 * (C0, DEL, C1) and every mark that reorders text (the bidirectional controls) is written as its
 * escape (`\n`, `\u001b`). Nothing shown can then move a terminal's cursor, clear its screen, set
 * its clipboard or title (OSC 52, OSC 0), start a line that reads as volbench's own, or show its
 * characters in another order than they have.
 */
const UNSEEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function inertText(text: string): string {
  return text.replace(UNSEEN, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Lines for a person, each made inert before they are joined: a newline inside one is shown, never taken as a line of its own. */
export function inertLines(lines: readonly string[]): string {
  return lines.map((line) => `${inertText(line)}\n`).join('');
}
