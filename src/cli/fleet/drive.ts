/**
 * How a command that drives a study to its end (compare, attach) ends: 0 when every member
 * finished and no gate failed, 1 otherwise, the signal's status after a signal (an error the
 * teardown raised then is the signal's doing); and whatever happened, the live table finished,
 * the signal handlers removed and the AWS clients closed.
 */
import { studyPassed, type MemberOutcome } from '../../fleet/index.js';
import { signalStatus, type Interruptible } from './signals.js';

export async function driveToEnd(
  stop: Interruptible,
  printer: { finish(): void },
  clients: { destroy(): void },
  drive: () => Promise<{ results: readonly MemberOutcome[] }>,
  /** An error that stands even after a signal (it says more than the signal would). */
  stands: (err: unknown) => boolean = () => false,
): Promise<number> {
  try {
    const { results } = await drive();
    if (stop.received()) return signalStatus(stop.received())!;
    return studyPassed(results) ? 0 : 1;
  } catch (err) {
    if (stop.received() && !stands(err)) return signalStatus(stop.received())!;
    throw err;
  } finally {
    printer.finish();
    stop.dispose();
    clients.destroy();
  }
}
