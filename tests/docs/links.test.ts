/**
 * The README and docs/ hold together: every relative link in README.md and docs/*.md names a
 * file of the checkout, and every #anchor a heading of the file it points into (GitHub's
 * slugs); and docs/layout.md names every folder of the tree. When the reference moved out of
 * the README into docs/, links that had pointed at README sections would have broken silently,
 * and the README's old Layout section had fallen four folders behind the tree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { requires } from '../helpers/requires.js';

requires();

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const docs = join(root, 'docs');
const pages = [join(root, 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => join(docs, f))];

/** Markdown outside fenced code blocks (a link in a shell example is not a link). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .filter((line) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      return !fenced && !/^ {4}/.test(line);
    })
    .join('\n');
}

/** [text](target): inline links and images; `code spans` dropped first. */
function links(text: string): string[] {
  const body = prose(text).replace(/`[^`\n]*`/g, '');
  return [...body.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

function broken(page: string): string[] {
  const text = readFileSync(page, 'utf8');
  const out: string[] = [];
  for (const link of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
    const [path, anchor] = link.split('#', 2);
    const target = path ? join(dirname(page), decodeURIComponent(path)) : page;
    if (!existsSync(target)) {
      out.push(`${link}: no such file`);
      continue;
    }
    if (anchor && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor)) {
      out.push(`${link}: no heading with that anchor in ${relative(root, target)}`);
    }
  }
  return out;
}

describe('links in README.md and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(links(readFileSync(join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(20);
  });

  for (const page of pages) {
    it(`every relative link of ${relative(root, page)} resolves`, () => {
      expect(broken(page)).toEqual([]);
    });
  }

  it('keeps the README short enough to finish', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250);
  });
});

describe('the checks themselves', () => {
  it('sees a link, skips code, and makes GitHub anchors', () => {
    expect(links('see [a](docs/a.md#x) and `[b](c.md)`\n```\n[d](e.md)\n```\n    [f](g.md)\n')).toEqual(['docs/a.md#x']);
    expect([...anchors('# Reports: price/performance tables\n## `volbench` adds\n## Options\n## Options\n')]).toEqual([
      'reports-priceperformance-tables', 'volbench-adds', 'options', 'options-1',
    ]);
  });
});

describe('docs/layout.md', () => {
  const layout = readFileSync(join(docs, 'layout.md'), 'utf8');
  const ignored = new Set(['node_modules', 'build', 'build-asan', 'dist', 'bundles']);
  const folders = (dir: string) =>
    readdirSync(join(root, dir)).filter((f) => statSync(join(root, dir, f)).isDirectory() && !ignored.has(f));

  it('names every top-level folder, every folder of src/ and native/', () => {
    const named = [
      ...folders('.').filter((f) => !f.startsWith('.') || f === '.ci').map((f) => `${f}/`),
      ...folders('src').map((f) => `src/${f}/`),
      ...folders('native').map((f) => `native/${f}/`),
    ];
    expect(named.filter((f) => !layout.includes(f))).toEqual([]);
  });
});
