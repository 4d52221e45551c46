#!/usr/bin/env node
// The longest functions of src/ (TypeScript, by the compiler's own parse) and native/ (C++, by
// brace matching from each definition's first line): where a decision chain has grown past a
// screen. Lines counted from the definition's first line to its closing brace.
//
//   node scripts/longest-functions.mjs [count]     (default 15)
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const count = Number(process.argv[2] ?? 15);

function files(dir, exts) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && exts.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function tsFunctions(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)) && node.body && ts.isBlock(node.body)) {
      const name = node.name?.getText(sf) ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(sf) : '(anonymous)');
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.end).line;
      out.push({ file, name, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

// A C++ definition: a line opening a body after a parameter list, not a control statement.
const CPP_DEF = /^\s*(?:template\s*<.*>\s*)?[\w:<>,*&~\s]+?\b([\w:~]+)\s*\([^;]*\)\s*(?:const\s*)?(?:override\s*)?(?:noexcept\s*)?(?::[^{]*)?\{\s*(?:\/\/.*)?$/;
const CONTROL = /^\s*(?:if|for|while|switch|else|do|return|catch)\b/;

function cppFunctions(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = CPP_DEF.exec(lines[i]);
    if (!m || CONTROL.test(lines[i])) continue;
    let depth = 0;
    for (let j = i; j < lines.length; j++) {
      const code = lines[j].replace(/\/\/.*$/, '').replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '');
      for (const c of code) depth += c === '{' ? 1 : c === '}' ? -1 : 0;
      if (depth === 0) {
        out.push({ file, name: m[1], line: i + 1, lines: j - i + 1 });
        break;
      }
    }
  }
  return out;
}

const all = [
  ...files(join(root, 'src'), ['.ts']).flatMap(tsFunctions),
  ...files(join(root, 'native'), ['.cc', '.h']).flatMap(cppFunctions),
].sort((a, b) => b.lines - a.lines);
for (const f of all.slice(0, count)) {
  process.stdout.write(`${String(f.lines).padStart(5)}  ${relative(root, f.file)}:${f.line}  ${f.name}\n`);
}
