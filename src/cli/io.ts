/** The two streams a command writes to: the result alone on stdout, everything else on stderr. */
export interface CommandIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** A `volbench: warning: …` line on stderr, for notes such as a deprecated form of a flag. */
export function warnTo(io: CommandIo): (line: string) => void {
  return (line) => io.stderr.write(`volbench: warning: ${line}\n`);
}
