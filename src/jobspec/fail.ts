/**
 * The spec stage's error constructors. Every error names the spec path of the value that was
 * wrong (`jobs[0].bs`, `global.iodepth`) and says in words what would have been accepted.
 */
import { VolbenchError } from '../errors.js';

/** A value that does not parse or is out of range (fio would refuse it too, or it is nonsense). */
export function invalidValue(field: string, message: string, accepted: string): VolbenchError {
  return new VolbenchError('EINVALID_VALUE', `${field}: ${message}`, { field, accepted });
}

/** Something fio accepts that volbench does not support yet (an option, a value, a form). */
export function unsupported(field: string, message: string, accepted?: string): VolbenchError {
  return new VolbenchError('EUNSUPPORTED_OPTION', `${field}: ${message}`, {
    field,
    ...(accepted === undefined ? {} : { accepted }),
  });
}

/** Options that contradict each other, caught before any target is looked at. */
export function contradiction(field: string, message: string, accepted: string): VolbenchError {
  return new VolbenchError('EINVALID_PLAN', `${field}: ${message}`, { field, accepted });
}
