/**
 * Lookups by a key that came from outside (a query parameter, a job file, a result document).
 * A plain object answers `table['constructor']` with Object's constructor and `'toString' in
 * table` with true, and `table['__proto__'] = x` replaces its prototype instead of adding an
 * entry: every table indexed by such a key is read with ownValue/hasOwnKey, and a table built
 * from such keys starts as ownTable() (no prototype at all).
 */

/** The value `table` holds under `key` itself; never one inherited from Object.prototype. */
export function ownValue<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Whether `key` is one of `table`'s own keys, narrowing it to the table's key type. */
export function hasOwnKey<K extends string>(table: Readonly<Record<K, unknown>>, key: string): key is K {
  return Object.hasOwn(table, key);
}

/** An empty table without a prototype: `__proto__` and `constructor` are keys like any other. */
export function ownTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
