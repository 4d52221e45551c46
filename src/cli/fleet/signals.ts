/**
 * Signals during a fleet command. The first SIGINT, SIGTERM or SIGHUP aborts what is under way
 * and runs `onFirst` (the teardown's first step); a second one leaves at once with the signal's
 * status. After SIGHUP, or once a write fails (EPIPE, EIO: the terminal or pipe is gone), nothing
 * more is written: a teardown must not die of its own progress lines.
 */
import type { CommandIo } from '../io.js';

const STATUS: Record<string, number> = { SIGINT: 130, SIGHUP: 129, SIGTERM: 143 };
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Streams that stop writing, silently, once their reader is gone. */
export function quietIo(io: CommandIo): CommandIo & { gone(): void } {
  let gone = false;
  const wrap = (stream: NodeJS.WriteStream): NodeJS.WriteStream => {
    stream.on('error', () => { gone = true; });
    return new Proxy(stream, {
      get(target, key) {
        if (key !== 'write') return Reflect.get(target, key, target);
        return (chunk: string | Uint8Array, ...rest: unknown[]) => {
          if (gone || target.destroyed) return true;
          try {
            return (target.write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
          } catch {
            gone = true;
            return true;
          }
        };
      },
    });
  };
  return { stdout: wrap(io.stdout), stderr: wrap(io.stderr), gone: () => { gone = true; } };
}

export interface Interruptible {
  signal: AbortSignal;
  /** The signal that came, if one did. */
  received(): string | undefined;
  dispose(): void;
}

/** `say` writes the signal's line (a live table puts it above itself); stderr by default. */
export function interruptible(
  io: CommandIo & { gone(): void }, what: string, onFirst?: (signal: string) => Promise<void> | void, say?: (line: string) => void,
): Interruptible {
  const controller = new AbortController();
  let got: string | undefined;
  const handlers = SIGNALS.map((sig) => {
    const handler = () => {
      if (got) process.exit(STATUS[sig]);
      got = sig;
      if (sig === 'SIGHUP') io.gone();
      const line = `\n${sig}: ${what} (${sig === 'SIGINT' ? 'Ctrl-C' : 'the signal'} again to leave at once)`;
      if (say) say(line);
      else io.stderr.write(`${line}\n`);
      controller.abort();
      void Promise.resolve(onFirst?.(sig)).catch((err: Error) => io.stderr.write(`${what}: ${err.message}\n`));
    };
    process.on(sig, handler);
    return [sig, handler] as const;
  });
  return {
    signal: controller.signal,
    received: () => got,
    dispose: () => { for (const [sig, h] of handlers) process.removeListener(sig, h); },
  };
}

export function signalStatus(sig: string | undefined): number | undefined {
  return sig ? STATUS[sig] : undefined;
}
