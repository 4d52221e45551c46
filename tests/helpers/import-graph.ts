/**
 * The import graph of src/: every file's relative imports (static, dynamic, type-only and
 * re-exports alike, read with TypeScript's own pre-processor), folded to the top-level folders
 * of src/ (`cloud`, `run`, ...; a file at the top, such as `errors.ts`, is a node of its own).
 *
 * The layers are DESIGN.md's one-way flow, lowest first. A folder may import only folders of a
 * lower layer: an import of its own layer's other folders, or of a higher layer, runs back up.
 * Circles are found among files (Tarjan's strongly connected components), so two files of one
 * folder that import each other count too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** DESIGN.md's layers, lowest first; folders on one line are side by side and import none of each other. */
export const LAYERS: readonly (readonly string[])[] = [
  ['node-version'],
  ['require-node', 'errors', 'version', 'own-key', 'inert-text'],
  ['engine'],
  ['jobspec'],
  ['fio-output'],
  ['device', 'gates', 'cloud'],
  ['findings'],
  ['plan'],
  ['run'],
  ['suites', 'compare'],
  ['analysis'],
  // The HTTP contract as zod: what the service answers and the fleet parses.
  ['api'],
  ['publish'],
  ['fleet'],
  // The library entry (src/index.ts): loads no service, no CLI and no fleet.
  ['index'],
  ['server'],
  ['cli'],
];

export interface ImportGraph {
  /** Files relative to src/, with their relative imports resolved to files relative to src/. */
  files: Map<string, string[]>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** './x.js' from src/a/b.ts → 'a/x.ts'; undefined for a package or a file outside src/. */
function resolveImport(srcDir: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier).replace(/\.js$/, '.ts');
  const rel = relative(srcDir, target);
  return rel.startsWith('..') ? undefined : rel.split(sep).join('/');
}

export function importGraph(srcDir: string): ImportGraph {
  const files = new Map<string, string[]>();
  for (const path of sourceFiles(srcDir)) {
    const info = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    const imports = info.importedFiles
      .map((f) => resolveImport(srcDir, path, f.fileName))
      .filter((f): f is string => f !== undefined);
    files.set(relative(srcDir, path).split(sep).join('/'), [...new Set(imports)].sort());
  }
  return { files };
}

/** `cloud/volume.ts` → `cloud`; `errors.ts` → `errors`. */
export function folderOf(file: string): string {
  const cut = file.indexOf('/');
  return cut < 0 ? file.replace(/\.ts$/, '') : file.slice(0, cut);
}

export function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

export interface FolderArrow {
  from: string;
  to: string;
  /** The file imports that make it: `cloud/annotate.ts -> findings/burst.ts`. */
  files: string[];
}

/** Imports between folders, one arrow per pair. */
export function folderArrows(graph: ImportGraph): FolderArrow[] {
  const arrows = new Map<string, FolderArrow>();
  for (const [file, imports] of graph.files) {
    for (const target of imports) {
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      const arrow = arrows.get(key) ?? { from, to, files: [] };
      arrows.set(key, arrow);
      arrow.files.push(`${file} -> ${target}`);
    }
  }
  return [...arrows.values()].sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

/** Arrows that do not run down the layers: to a folder of the same or a higher layer, or to one in no layer. */
export function arrowsBackUp(graph: ImportGraph): FolderArrow[] {
  return folderArrows(graph).filter((a) => {
    const from = layerOf(a.from);
    const to = layerOf(a.to);
    return from < 0 || to < 0 || to >= from;
  });
}

/** Every set of files that import each other, directly or round a longer loop (each sorted). */
export function circles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of graph.files.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1];
      const edges = graph.files.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++];
        if (!graph.files.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The picture as text: each arrow back up with the imports that make it, then each circle. */
export function describeHouse(graph: ImportGraph): string {
  const up = arrowsBackUp(graph);
  const loops = circles(graph);
  const lines = [`${up.length} arrow(s) back up the layers, ${loops.length} circle(s)`];
  for (const a of up) lines.push(`  ${a.from} -> ${a.to}: ${a.files.join('; ')}`);
  for (const c of loops) lines.push(`  circle: ${c.join(' <-> ')}`);
  return `${lines.join('\n')}\n`;
}

// `node tests/helpers/import-graph.ts [SRC_DIR]` prints the picture (the test fails on the same).
if (process.argv[1] && import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href) {
  process.stdout.write(describeHouse(importGraph(resolve(process.argv[2] ?? 'src'))));
}
