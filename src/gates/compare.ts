/** A gate's comparison: its operators, and the comparison of a measured number with the wanted one. */
export type ComparisonOp = '>=' | '<=' | '>' | '<' | '==' | '!=';

/** Two-character operators first: `>=` must not read as `>`. */
export const OPS: readonly ComparisonOp[] = ['>=', '<=', '==', '!=', '>', '<'];

export function compare(measured: number, op: ComparisonOp, wanted: number): boolean {
  switch (op) {
    case '>=':
      return measured >= wanted;
    case '<=':
      return measured <= wanted;
    case '>':
      return measured > wanted;
    case '<':
      return measured < wanted;
    case '==':
      return measured === wanted;
    case '!=':
      return measured !== wanted;
  }
}
