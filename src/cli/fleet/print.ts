/**
 * What the fleet commands print. A fleet's events (src/fleet/events.ts) as lines for a person on
 * stderr; with `--format json` (`up`, `compare`) also one JSON object a line on stdout, the first
 * `{"event":"created","fleetId":...}`. The report goes to stdout as Markdown, or in its JSON line.
 */
import type { FleetEvent, OnFleetEvent } from '../../fleet/index.js';
import { inertText } from '../../inert-text.js';
import { renderJson, renderMarkdown } from '../../publish/index.js';
import type { CommandIo } from '../io.js';
import type { FleetValues } from './flags.js';

/** A command's outcome on stdout: its JSON (--format json), else its text. */
export function print(io: CommandIo, values: FleetValues, json: unknown, text: string): void {
  if (values.format === 'json') io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else io.stdout.write(text);
}

/**
 * An event as a line for a person; undefined for the report, which is not a line. `autonomous`:
 * a study's members, which nothing reaches (no endpoint to show).
 */
export function eventText(e: FleetEvent, autonomous = false): string | undefined {
  switch (e.event) {
    case 'created':
      return `fleet ${e.fleetId}: creating ${e.members.length} instance(s) in ${e.region} (volbench fleet down ${e.fleetId} removes them)`;
    case 'step':
      return `fleet ${e.fleetId}: ${e.step}${e.reason ? ` (${e.reason})` : ''}`;
    case 'member-up':
      if (autonomous) return `${e.label}: up${e.instanceId ? ` (instance ${e.instanceId})` : ''}`;
      return `${e.label}: up at ${e.endpoint ?? '(no usable endpoint output)'}`;
    case 'member-failed':
      return `${e.label}: ${e.reason}`;
    case 'progress':
      return `[${e.label}] ${e.line}`;
    case 'member-done':
      return `[${e.label}] done: ${e.status}${e.exitCode !== undefined ? ` (exit ${e.exitCode})` : ''}${e.reason ? `: ${e.reason}` : ''}`;
    case 'collected':
      return `[${e.label}] collected: ${e.file ?? e.key}`;
    case 'result': {
      const gate = e.gate ? `, gate ${e.gate}` : '';
      const where = e.file ?? (e.error !== undefined && e.error !== e.status ? e.error : undefined);
      return `[${e.label}] ${e.status}${gate}${where ? `: ${where}` : ''}`;
    }
    case 'report':
      return undefined;
    case 'tearing-down':
      return `fleet ${e.fleetId}: deleting`;
    case 'torn-down':
      return e.remaining.length ? `fleet ${e.fleetId}: still there after the teardown: ${e.remaining.join(', ')}` : `fleet ${e.fleetId}: nothing of it remains`;
    case 'kept':
      return `fleet ${e.fleetId} left up (--keep): volbench fleet down ${e.fleetId}`;
    case 'log':
      return e.line;
    default:
      return e satisfies never;
  }
}

/** The JSON line of an event: the report as `volbench report --format json` gives it (no chart details). */
export function jsonLine(e: FleetEvent): string {
  const plain = e.event === 'report' ? { ...e, report: JSON.parse(renderJson(e.report)) as unknown } : e;
  return `${JSON.stringify(plain)}\n`;
}

/**
 * Prints each event: text on stderr (the report as Markdown on stdout), and with `jsonLines` each
 * as a JSON line on stdout. An event's line carries what members and the bucket said (a test's
 * name, a reason, a refused key): it is one line, inert (inert-text.ts).
 */
export function eventPrinter(io: CommandIo, jsonLines: boolean): OnFleetEvent {
  return (e) => {
    const text = eventText(e);
    if (text !== undefined) io.stderr.write(`${inertText(text)}\n`);
    if (jsonLines) io.stdout.write(jsonLine(e));
    else if (e.event === 'report') io.stdout.write(renderMarkdown(e.report));
  };
}
