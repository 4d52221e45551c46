/**
 * Assertion outcomes as GitHub Actions workflow commands: `::error` for each that fails,
 * `::notice` for each that holds, so they show as annotations on the run's summary page.
 */
import type { AssertionOutcome } from './evaluate.js';

/** Workflow-command escaping of a message: %, CR and LF. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow-command escaping of a property value (title=...): also ':' and ','. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function githubAnnotation(o: AssertionOutcome): string {
  const command = o.passed ? 'notice' : 'error';
  const title = `volbench: ${o.expr}`;
  const message = o.passed ? `holds: ${o.message}` : `fails: ${o.message}`;
  return `::${command} title=${escapeProperty(title)}::${escapeData(message)}`;
}

/** One workflow command per outcome, newline-terminated. */
export function toGithubAnnotations(outcomes: readonly AssertionOutcome[]): string {
  return outcomes.map((o) => `${githubAnnotation(o)}\n`).join('');
}
