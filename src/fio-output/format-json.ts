/**
 * formatJson: a result object printed exactly as fio's json.c prints its tree. Two spaces per
 * level, `"key" : value`, integers with %lld, floats with %f, empty objects as "{\n\n<indent>}".
 * A parsed JSON value no longer knows whether fio printed it as an integer or a float, so the
 * choice is made by key, from the calls in stat.c (json_object_add_value_float) and diskutil.
 */
import { formatFixed, formatInteger } from './printf.js';

export interface FormatJsonOptions {
  /** json+: keep the `bins` objects; plain json drops them. */
  plus: boolean;
}

/** Keys stat.c adds with json_object_add_value_float. */
const FLOAT_KEYS = new Set([
  'mean', 'stddev', 'iops', 'bw_agg', 'bw_mean', 'bw_dev', 'iops_mean', 'iops_stddev', 'cachehit',
  'usr_cpu', 'sys_cpu', 'latency_percentile', 'util', 'aggr_util', 'max_deviation', 'slope',
]);

/** Objects whose every value is a float percentage. */
const FLOAT_PARENTS = new Set([
  'iodepth_level', 'iodepth_submit', 'iodepth_complete', 'latency_ns', 'latency_us', 'latency_ms',
]);

type Path = readonly string[];

function isFloat(path: Path): boolean {
  const key = path[path.length - 1];
  const parent = path[path.length - 2];
  if (parent !== undefined && FLOAT_PARENTS.has(parent)) return true;
  // steadystate.data's bw_mean and iops_mean are integers (json_object_add_value_int).
  if (parent === 'data' && path.includes('steadystate')) return false;
  return FLOAT_KEYS.has(key);
}

function formatNumber(value: number, path: Path): string {
  // volbench's own numbers: integers when integral, else six decimals.
  const float = path[0] === 'volbench' ? !Number.isInteger(value) : isFloat(path);
  if (!float) return formatInteger(value);
  // fio would print "nan"/"inf" (not JSON); volbench keeps the document parseable.
  return formatFixed(Number.isFinite(value) ? value : 0, 6);
}

/**
 * json.c escapes only '\' and '"'. Control characters are escaped too (fio prints them raw,
 * which makes the document invalid JSON); printable text comes out byte for byte as fio's.
 */
export function escapeString(s: string): string {
  return s.replace(/[\\"\u0000-\u001f]/g, (c) =>
    c === '\\' || c === '"' ? '\\' + c : '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
  );
}

const indent = (level: number): string => '  '.repeat(level);

function formatValue(value: unknown, level: number, path: Path, opts: FormatJsonOptions): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `"${escapeString(value)}"`;
  if (typeof value === 'number') return formatNumber(value, path);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return formatArray(value, level, path, opts);
  if (ArrayBuffer.isView(value)) return formatArray(Array.from(value as unknown as ArrayLike<number>), level, path, opts);
  return formatObject(value as Record<string, unknown>, level, path, opts);
}

function formatObject(obj: Record<string, unknown>, level: number, path: Path, opts: FormatJsonOptions): string {
  const pairs = Object.entries(obj)
    .filter(([k, v]) => v !== undefined && (opts.plus || k !== 'bins'))
    .map(([k, v]) => `${indent(level + 1)}"${escapeString(k)}" : ${formatValue(v, level + 1, [...path, k], opts)}`);
  return `{\n${pairs.join(',\n')}\n${indent(level)}}`;
}

function formatArray(items: readonly unknown[], level: number, path: Path, opts: FormatJsonOptions): string {
  const values = items.map((v) => indent(level + 1) + formatValue(v, level + 1, [...path, '[]'], opts));
  return `[\n${values.join(',\n')}\n${indent(level)}]`;
}

/** The document as fio writes it, newline included. */
export function formatJson(result: object, opts: FormatJsonOptions = { plus: false }): string {
  return formatObject(result as Record<string, unknown>, 0, [], opts) + '\n';
}
