/**
 * A fleet's own tags (--tag) in a member's template: CloudFormation cannot make a list of tags
 * from a parameter, so each place of infra/cloudformation/instance.yaml that takes them holds a
 * line `# volbench:user-tags`, and the template a fleet's stacks are made from has the tags
 * there, one flow mapping a line at that line's indentation. Keys and values were checked
 * (tags.ts: letters, digits, plain spaces and `_ . : / = + - @`) and are written as JSON
 * strings, which YAML reads as double-quoted scalars: nothing in them can become YAML.
 */
import { checkTags, type FleetTag } from './tags.js';

export const USER_TAGS_MARK = /^( *)# volbench:user-tags$/gm;

/** `body` with `tags` at each mark; the body itself when there are none. */
export function withUserTags(body: string, tags: readonly FleetTag[] | undefined): string {
  if (!tags?.length) return body;
  const checked = checkTags(tags, 'tags');
  return body.replace(USER_TAGS_MARK, (_line, indent: string) =>
    checked.map((t) => `${indent}- { Key: ${JSON.stringify(t.Key)}, Value: ${JSON.stringify(t.Value)} }`).join('\n'));
}
