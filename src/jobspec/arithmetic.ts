/**
 * Whole-number arithmetic for job-file values such as `numjobs=$ncpus/2`. fio hands these to
 * bc (options.c bc_calc), which works on integers here: `/` truncates toward zero.
 */

type Token = { kind: 'num'; value: bigint } | { kind: 'op'; value: string };

function tokenize(expr: string): Token[] | undefined {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+)|([-+*/()]))/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < expr.length && (m = re.exec(expr))) {
    tokens.push(m[1] !== undefined ? { kind: 'num', value: BigInt(m[1]) } : { kind: 'op', value: m[2] });
  }
  if (expr.slice(re.lastIndex).trim() !== '') return undefined;
  return tokens;
}

/**
 * Unary signs and parentheses nested deeper than this are refused. The evaluator recurses once
 * per level, so without a bound a line of 8000 minus signs overflowed the stack: refused only
 * because the overflow happened to be caught, and at a depth that depends on the caller's stack.
 */
const MAX_NESTING = 1000;

/** Recursive descent over + - (lowest), * /, unary signs and parentheses. */
class Evaluator {
  private pos = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  run(): bigint {
    const value = this.sum();
    if (this.pos !== this.tokens.length) throw new Error('unexpected token');
    return value;
  }

  private peek(): string | undefined {
    const t = this.tokens[this.pos];
    return t?.kind === 'op' ? t.value : undefined;
  }

  private sum(): bigint {
    let value = this.product();
    for (let op = this.peek(); op === '+' || op === '-'; op = this.peek()) {
      this.pos++;
      const rhs = this.product();
      value = op === '+' ? value + rhs : value - rhs;
    }
    return value;
  }

  private product(): bigint {
    let value = this.unary();
    for (let op = this.peek(); op === '*' || op === '/'; op = this.peek()) {
      this.pos++;
      const rhs = this.unary();
      if (op === '/' && rhs === 0n) throw new Error('division by zero');
      value = op === '*' ? value * rhs : value / rhs;
    }
    return value;
  }

  private unary(): bigint {
    const op = this.peek();
    if (op === '-' || op === '+' || op === '(') {
      if (++this.depth > MAX_NESTING) throw new Error('nested too deeply');
      const value = op === '(' ? this.parenthesised() : this.signed(op);
      this.depth--;
      return value;
    }
    const t = this.tokens[this.pos++];
    if (t?.kind !== 'num') throw new Error('expected a number');
    return t.value;
  }

  private signed(op: '-' | '+'): bigint {
    this.pos++;
    const value = this.unary();
    return op === '-' ? -value : value;
  }

  private parenthesised(): bigint {
    this.pos++;
    const value = this.sum();
    if (this.peek() !== ')') throw new Error("missing ')'");
    this.pos++;
    return value;
  }
}

/** The value of an integer expression, or undefined when it is not one. */
export function evaluateInteger(expr: string): bigint | undefined {
  const tokens = tokenize(expr);
  if (!tokens || tokens.length === 0) return undefined;
  try {
    return new Evaluator(tokens).run();
  } catch {
    return undefined;
  }
}
