/**
 * The AWS calls a part of src/ can make, read from its source: every file reachable from its
 * entry points by relative imports (tests/helpers/import-graph.ts), and in each, every SDK
 * command it imports from an `@aws-sdk/client-*` package (statically or with `await import`),
 * every waiter (which polls a Describe call) and every action named to `awsCall`. Each becomes
 * the IAM action it needs: the client's prefix and the command's name, with the S3 commands
 * whose action is named otherwise mapped; a command this file cannot map fails the reading, so a
 * new call is never passed over.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { importGraph } from './import-graph.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** IAM's prefix for each SDK client package. */
const PREFIX: Record<string, string> = {
  'client-cloudformation': 'cloudformation', 'client-ec2': 'ec2', 'client-s3': 's3', 'client-scheduler': 'scheduler', 'client-ssm': 'ssm',
  'client-sts': 'sts', 'client-kms': 'kms', 'client-service-quotas': 'servicequotas', 'client-iam': 'iam', 'client-pricing': 'pricing',
};

/** S3 commands whose IAM action has another name (AWS's "Actions, resources and condition keys for Amazon S3"). */
const S3_ACTIONS: Record<string, string[]> = {
  GetBucketEncryption: ['GetEncryptionConfiguration'], PutBucketEncryption: ['PutEncryptionConfiguration'],
  ListObjectsV2: ['ListBucket'], ListObjects: ['ListBucket'], HeadBucket: ['ListBucket'], HeadObject: ['GetObject'],
  DeleteObjects: ['DeleteObject'], CopyObject: ['GetObject', 'PutObject'], ListObjectVersions: ['ListBucketVersions'],
};

/** The Describe call each waiter polls. */
const WAITERS: Record<string, string> = {
  waitUntilStackCreateComplete: 'cloudformation:DescribeStacks', waitUntilStackDeleteComplete: 'cloudformation:DescribeStacks',
  waitUntilStackUpdateComplete: 'cloudformation:DescribeStacks', waitUntilInstanceTerminated: 'ec2:DescribeInstances',
  waitUntilInstanceRunning: 'ec2:DescribeInstances', waitUntilVolumeAvailable: 'ec2:DescribeVolumes', waitUntilVolumeDeleted: 'ec2:DescribeVolumes',
};

/** Files of src/ reachable from `roots` (relative to src/), not under any of `exclude`. */
export function reachable(roots: readonly string[], exclude: readonly string[] = []): string[] {
  const { files } = importGraph(SRC);
  const out = new Set<string>();
  const skip = (f: string) => exclude.some((e) => f === e || f.startsWith(e.endsWith('/') ? e : `${e}/`));
  // A root this checkout does not have (yet) is none.
  const todo = roots.filter((r) => !skip(r) && files.has(r));
  while (todo.length) {
    const f = todo.pop()!;
    if (out.has(f)) continue;
    out.add(f);
    for (const next of files.get(f) ?? []) if (!skip(next) && !out.has(next)) todo.push(next);
  }
  return [...out].sort();
}

/** The names a file brings in from each `@aws-sdk/client-*` package: `import {...} from` and `await import(...)`. */
function sdkImports(text: string): Array<{ pkg: string; name: string }> {
  const out: Array<{ pkg: string; name: string }> = [];
  const forms = [/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@aws-sdk\/(client-[a-z0-9-]+)'/g, /const\s*\{([^}]*)\}\s*=\s*await\s+import\('@aws-sdk\/(client-[a-z0-9-]+)'\)/g];
  for (const form of forms) {
    for (const m of text.matchAll(form)) {
      if (/^import\s*type/.test(m[0])) continue;
      for (const part of m[1].split(',')) {
        const item = part.trim();
        if (!item || item.startsWith('type ')) continue;
        // `ListTagsForResourceCommand as ListScheduleTagsCommand` (import) or `X: Y` (destructuring): the package's own name.
        out.push({ pkg: m[2], name: item.split(/\s+as\s+|\s*:\s*/)[0].trim() });
      }
    }
  }
  return out;
}

export interface SdkCall {
  action: string;
  /** The files that make it (relative to src/). */
  files: string[];
}

/** The IAM actions the files make, each with the files that make it; throws naming a command it cannot map. */
export function sdkActions(files: readonly string[]): SdkCall[] {
  const found = new Map<string, Set<string>>();
  const add = (action: string, file: string) => (found.get(action) ?? found.set(action, new Set()).get(action)!).add(file);
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const { pkg, name } of sdkImports(text)) {
      const prefix = PREFIX[pkg];
      if (name.endsWith('Command')) {
        if (!prefix) throw new Error(`${file}: ${name} of @aws-sdk/${pkg}, whose IAM prefix tests/helpers/sdk-commands.ts does not know`);
        const op = name.slice(0, -'Command'.length);
        for (const a of prefix === 's3' ? (S3_ACTIONS[op] ?? [op]) : [op]) add(`${prefix}:${a}`, file);
      } else if (name.startsWith('waitUntil')) {
        if (!WAITERS[name]) throw new Error(`${file}: waiter ${name}, whose Describe call tests/helpers/sdk-commands.ts does not know`);
        add(WAITERS[name], file);
      }
    }
    for (const m of text.matchAll(/awsCall\(\s*'([a-z0-9-]+:[A-Za-z0-9]+)'/g)) add(m[1], file);
  }
  return [...found].map(([action, where]) => ({ action, files: [...where].sort() })).sort((a, b) => a.action.localeCompare(b.action));
}

export interface PolicyStatement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
}

/** Whether an IAM action pattern (`ec2:Describe*`, `s3:*`) covers `action`; IAM matches case-insensitively. */
export function actionMatches(pattern: string, action: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return re.test(action);
}

/** The Allow statements of `statements` that grant `action`, by Sid. */
export function grantedBy(statements: readonly PolicyStatement[], action: string): string[] {
  return statements.filter((s) => s.Effect === 'Allow' && [s.Action].flat().some((p) => actionMatches(p, action))).map((s) => s.Sid ?? '(no Sid)');
}
