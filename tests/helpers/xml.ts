/**
 * A small, strict XML reader for the reports the tests check (JUnit): elements, attributes and
 * text, the five predefined entities, and an error for anything malformed (unclosed or
 * mismatched tags, a stray '<', text outside the root).
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  if (/&(?!(lt|gt|amp|quot|apos);)/.test(text)) throw new Error(`bare & in XML text: ${text}`);
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ENTITIES[e]);
}

const TOKEN = /<\/([A-Za-z_][\w.-]*)\s*>|<([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;

export function parseXml(source: string): XmlElement {
  const body = source.replace(/^<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < body.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(body);
    if (!m) throw new Error(`malformed XML at offset ${at}: ${body.slice(at, at + 40)}`);
    const top = stack[stack.length - 1];
    if (m[1] !== undefined) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`);
      stack.pop();
    } else if (m[2] !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of m[3].matchAll(/([\w:.-]+)="([^"]*)"/g)) attrs[a[1]] = decode(a[2]);
      const el: XmlElement = { name: m[2], attrs, children: [], text: '' };
      top.children.push(el);
      if (m[4] !== '/') stack.push(el);
    } else {
      if (top === root && m[5].trim() !== '') throw new Error('text outside the root element');
      top.text += decode(m[5]);
    }
  }
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].name}> is not closed`);
  if (root.children.length !== 1) throw new Error(`${root.children.length} root elements`);
  return root.children[0];
}

/** Every element named `name` under `el` (depth first, document order). */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  return el.children.flatMap((c) => [...(c.name === name ? [c] : []), ...findAll(c, name)]);
}
