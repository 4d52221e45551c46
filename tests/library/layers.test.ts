/**
 * The house stays one-way (DESIGN.md): every import between the top-level folders of src/ runs
 * down the layers of tests/helpers/import-graph.ts, and no files import each other, however
 * long the loop. Before issue 23 the catalog imported the analyses and the fleet, fio's output
 * the analyses' types and the run the analyses: 4 arrows back up, and 4 circles of two files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

import { arrowsBackUp, circles, describeHouse, folderOf, importGraph, LAYERS } from '../helpers/import-graph.js';
import { requires } from '../helpers/requires.js';

requires();

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

describe('the import graph of src/', () => {
  const graph = importGraph(src);

  it('places every top-level folder and file of src/ in a layer', () => {
    const placed = new Set(LAYERS.flat());
    const unplaced = [...new Set([...graph.files.keys()].map(folderOf))].filter((f) => !placed.has(f));
    expect(unplaced).toEqual([]);
  });

  it('has no import that runs back up the layers', () => {
    expect(arrowsBackUp(graph), describeHouse(graph)).toEqual([]);
  });

  it('has no circle of files', () => {
    expect(circles(graph), describeHouse(graph)).toEqual([]);
  });
});

describe('the check itself', () => {
  const dir = mkdtempSync(join(tmpdir(), `volbench-layers-${process.pid}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('finds an import back up, a type-only and a dynamic one, and circles of two and of three files', () => {
    file('fio-output/a.ts', "import type { B } from '../run/b.js';\nexport const a = 1;\n");
    file('run/b.ts', "export type B = number;\nexport const b = () => import('../cli/c.js');\n");
    file('cli/c.ts', "export const c = 1;\n");
    file('plan/x.ts', "export { y } from './y.js';\n");
    file('plan/y.ts', "import { x } from './x.js';\nexport const y = x;\n");
    file('gates/p.ts', "import './q.js';\n");
    file('gates/q.ts', "import './r.js';\n");
    file('gates/r.ts', "import './p.js';\n");
    const g = importGraph(dir);
    expect(arrowsBackUp(g).map((a) => `${a.from} -> ${a.to}`)).toEqual(['fio-output -> run', 'run -> cli']);
    expect(circles(g)).toEqual([['gates/p.ts', 'gates/q.ts', 'gates/r.ts'], ['plan/x.ts', 'plan/y.ts']]);
    expect(describeHouse(g)).toMatch(/^2 arrow\(s\) back up the layers, 2 circle\(s\)/);
  });

  it('counts a folder in no layer, or an import sideways within a layer, as running back up', () => {
    file('gates/s.ts', "import '../cloud/t.js';\n");
    file('cloud/t.ts', "import '../newfolder/u.js';\n");
    file('newfolder/u.ts', 'export {};\n');
    const arrows = arrowsBackUp(importGraph(dir)).map((a) => `${a.from} -> ${a.to}`);
    expect(arrows).toContain('gates -> cloud');
    expect(arrows).toContain('cloud -> newfolder');
  });
});
