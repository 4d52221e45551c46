// A CloudFormation template's text as data, for the stand-ins: JSON, or YAML with the short forms
// (!Ref, !Sub, ...) read as plain values, since only the template's shape is wanted here.
import { parse, type Tags } from 'yaml';

const SHORT_FORMS = ['Ref', 'Sub', 'GetAtt', 'If', 'Equals', 'Not', 'And', 'Or', 'Join', 'Base64', 'Select', 'Split', 'Condition', 'FindInMap',
  'GetAZs', 'ImportValue', 'Cidr', 'Transform'];
const tags = SHORT_FORMS.flatMap((name) => (['scalar', 'seq', 'map'] as const).map((c) => ({
  tag: `!${name}`, collection: c === 'scalar' ? undefined : c, resolve: (v: unknown) => v,
}))) as Tags;

export interface TemplateShape {
  Resources?: Record<string, { Type?: string; CreationPolicy?: unknown; DependsOn?: string | string[] }>;
}

export function parseTemplate(body: string): TemplateShape {
  const text = body.trimStart();
  if (text.startsWith('{')) return JSON.parse(text) as TemplateShape;
  return parse(text, { customTags: tags, logLevel: 'error' }) as TemplateShape;
}

/** The resources whose creation waits for signals (a CreationPolicy), by logical id. */
export function signalledResources(body: string): string[] {
  return Object.entries(parseTemplate(body).Resources ?? {}).filter(([, r]) => r?.CreationPolicy !== undefined).map(([id]) => id);
}
