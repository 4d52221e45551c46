/**
 * The tags a company account asks for (`--tag CostCenter=cc-42`, repeatable; `tags` in a study's
 * body): tag policies and SCPs that deny RunInstances, CreateVolume or CreateSecurityGroup
 * without them. They go on every stack (CloudFormation hands them to what it creates) and on the
 * launch template's tag specifications, so the instance and its volumes carry them at creation,
 * which is when such a policy looks.
 *
 * A key AWS reserves (`aws:`) cannot be set, and one volbench owns (`volbench:`) would let a tag
 * pass for the fleet's own: both are refused naming the key.
 */
import { VolbenchError } from '../errors.js';

export interface FleetTag {
  Key: string;
  Value: string;
}

/**
 * What EC2 and CloudFormation take in a tag: letters, digits, spaces and `_ . : / = + - @`; of
 * the spaces, the plain one only (a line or paragraph separator would end a line of the template).
 */
const TAG_TEXT = /^[\p{L}\p{N} _.:/=+\-@]*$/u;
const RESERVED = /^(aws|volbench):/i;
/** A resource takes 50 tags; volbench's own (fleet, volume, expires, Name) and CloudFormation's need the rest. */
export const MAX_USER_TAGS = 40;

const ACCEPTED = 'KEY=VALUE: a key of 1-128 and a value of 0-256 letters, digits, spaces and _ . : / = + - @; the key not aws: or volbench:';

/** One tag, checked: refused naming `field` and the key. */
export function checkTag(tag: FleetTag, field: string): FleetTag {
  const { Key: key, Value: value } = tag;
  if (key.length < 1 || key.length > 128 || !TAG_TEXT.test(key) || key.trim() !== key) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: '${key.slice(0, 140)}' is not a tag key`, { field, accepted: ACCEPTED });
  }
  if (RESERVED.test(key)) {
    const owner = key.toLowerCase().startsWith('aws:') ? 'AWS reserves aws: keys' : 'volbench sets volbench: keys itself';
    throw new VolbenchError('EINVALID_ARGS', `${field}: tag key '${key}' cannot be given (${owner})`, { field, accepted: ACCEPTED });
  }
  if (value.length > 256 || !TAG_TEXT.test(value)) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: the value of tag '${key}' is not a tag value`, { field, accepted: ACCEPTED });
  }
  return { Key: key, Value: value };
}

/** A list of tags, each checked, no key twice, at most MAX_USER_TAGS. */
export function checkTags(tags: readonly FleetTag[], field: string): FleetTag[] {
  if (tags.length > MAX_USER_TAGS) {
    throw new VolbenchError('EINVALID_ARGS', `${field}: ${tags.length} tags, where a fleet takes ${MAX_USER_TAGS} (a resource holds 50, and volbench's own need the rest)`, {
      field, accepted: `at most ${MAX_USER_TAGS} tags`,
    });
  }
  const seen = new Set<string>();
  return tags.map((t, i) => {
    const tag = checkTag(t, `${field}[${i}]`);
    if (seen.has(tag.Key)) throw new VolbenchError('EINVALID_ARGS', `${field}: tag '${tag.Key}' is given twice`, { field: `${field}[${i}]`, accepted: 'each key once' });
    seen.add(tag.Key);
    return tag;
  });
}

/** `--tag K=V`, as given on the command line (each split at its first `=`). */
export function parseTagFlags(given: readonly string[] | undefined, field = '--tag'): FleetTag[] {
  const tags = (given ?? []).map((text) => {
    const at = text.indexOf('=');
    if (at < 0) throw new VolbenchError('EINVALID_ARGS', `${field} '${text.slice(0, 140)}' has no '='`, { field, accepted: ACCEPTED });
    return { Key: text.slice(0, at), Value: text.slice(at + 1) };
  });
  return checkTags(tags, field);
}

/** Tags as a JSON body gives them (`{"CostCenter": "cc-42"}`). */
export type StackTags = Record<string, string>;

/** A body's tags as a list. */
export function tagList(tags: StackTags | undefined): FleetTag[] {
  return Object.entries(tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
}

/** A body's tags checked as `--tag`'s are, each named `field.KEY`; the same object. */
export function checkStackTags(tags: StackTags, field: string): StackTags {
  const list = tagList(tags);
  if (list.length > MAX_USER_TAGS) checkTags(list, field);
  for (const t of list) {
    const at = `${field}.${t.Key.slice(0, 128)}`;
    if (typeof t.Value !== 'string') throw new VolbenchError('EINVALID_ARGS', `${at}: a tag's value is a string`, { field: at, accepted: ACCEPTED });
    checkTag(t, at);
  }
  return tags;
}

/** Tags given two ways (the plan's, a study body's), each key once: the first given wins. */
export function userTags(...lists: ReadonlyArray<readonly FleetTag[] | undefined>): FleetTag[] {
  const seen = new Set<string>();
  return lists.flatMap((l) => l ?? []).filter((t) => (seen.has(t.Key) ? false : (seen.add(t.Key), true)));
}
