import { codeOnly, display } from "./unevaluated.js";

/**
 * cel-go's `cel.bind(name, init, expr)` macro belongs to `ext.Bindings()`, which no Kubernetes release puts in the
 * CEL base environment (apiserver/pkg/cel/environment/base.go, v1.23 through v1.37: strings, sets, lists, two-variable
 * comprehensions, but never bindings), so kube-apiserver of every `--kube-version` refuses a rule using it at
 * CustomResourceDefinition write. Without the macro, cel-go's parser reads `cel.bind(x, init, body)` as a member
 * call of an identifier `cel`, and its checker reports each unknown name: the arguments first (the bound variable
 * wherever it is referenced), then the receiver `cel`, then the function `bind` at its parenthesis; the errors are
 * printed sorted by position. Both JavaScript libraries know the macro, so the simulator refuses it itself.
 */
export function bindingsError(expr: string): string | undefined {
  const code = codeOnly(expr);
  const calls = [...code.matchAll(/(?<![\w.])cel\s*\.\s*bind\s*\(/g)];
  if (calls.length === 0) return undefined;
  const errors = new Map<number, string>();
  for (const m of calls) {
    const start = m.index ?? 0;
    const paren = start + m[0].length - 1;
    errors.set(start, "cel");
    errors.set(paren, "bind");
    const end = closingParen(code, paren);
    const args = code.slice(paren + 1, end);
    const variable = /^\s*([A-Za-z_]\w*)\s*,/.exec(args)?.[1];
    if (variable === undefined) continue;
    for (const ref of args.matchAll(new RegExp(`(?<![\\w.])${variable}(?![\\w(])`, "g")))
      errors.set(paren + 1 + (ref.index ?? 0), variable);
  }
  return [...errors.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([offset, name]) => display(expr, offset, `undeclared reference to '${name}' (in container '')`))
    .join("\n");
}

/** The offset of the parenthesis closing the one at `open` (the text's end when unbalanced). */
function closingParen(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")" && --depth === 0) return i;
  }
  return code.length;
}
