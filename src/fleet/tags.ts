/**
 * The user's own tags on a fleet's stacks (CloudFormation gives a stack's tags to what it makes):
 * what a company account's tag policies ask for (CostCenter, Owner). A key AWS reserves (`aws:`)
 * or that volbench owns (`volbench:`, which reap and down decide on) is refused, naming it.
 */
import { VolbenchError } from '../errors.js';

/** A stack takes 50 tags; volbench puts three of its own. */
export const MAX_USER_TAGS = 40;

/** AWS's tag characters: letters, digits, spaces and _ . : / = + - @. */
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

export type StackTags = Record<string, string>;

/** `tags` checked as stack tags; the same object. `field` names where they were given (`tags`, `--tag`). */
export function checkStackTags(tags: StackTags, field: string): StackTags {
  const keys = Object.keys(tags);
  if (keys.length > MAX_USER_TAGS) {
    throw new VolbenchError('EINVALID_ARGS', `${keys.length} tags: a fleet's stacks take at most ${MAX_USER_TAGS} of the user's`, { field, accepted: `at most ${MAX_USER_TAGS} tags` });
  }
  for (const key of keys) {
    const value = tags[key];
    const at = `${field}.${key.slice(0, 128)}`;
    if (/^aws:/i.test(key) || /^volbench:/i.test(key)) {
      throw new VolbenchError('EINVALID_ARGS', `tag ${key.slice(0, 128)}: keys starting ${/^aws:/i.test(key) ? 'aws:' : 'volbench:'} are ${/^aws:/i.test(key) ? "AWS's" : "volbench's own"}, not a user's`, {
        field: at, accepted: 'a key not starting aws: or volbench:',
      });
    }
    if (key.length < 1 || key.length > 128 || !TAG_TEXT.test(key)) {
      throw new VolbenchError('EINVALID_ARGS', `tag key '${key.slice(0, 128)}' is not one AWS takes`, { field: at, accepted: "1 to 128 letters, digits, spaces and _ . : / = + - @" });
    }
    if (typeof value !== 'string' || value.length > 256 || !TAG_TEXT.test(value)) {
      throw new VolbenchError('EINVALID_ARGS', `tag ${key}: its value is not one AWS takes`, { field: at, accepted: "up to 256 letters, digits, spaces and _ . : / = + - @" });
    }
  }
  return tags;
}

/** As CloudFormation's Tags list. */
export function tagList(tags: StackTags | undefined): Array<{ Key: string; Value: string }> {
  return Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
}
