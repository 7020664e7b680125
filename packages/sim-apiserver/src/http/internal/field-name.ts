/**
 * `fields.Selector.RequiresExactMatch(field)` on the text of a field selector, without building a selector: the
 * unescaped value of the first `field=value` or `field==value` term, else `undefined`. Terms are separated by
 * unescaped commas; `\\`, `\,` and `\=` escape inside values. A malformed selector yields `undefined` (the storage
 * layer reports the parse error).
 */
export function fieldSelectorRequiresExactMatch(selector: string, field: string): string | undefined {
  const terms: string[] = [];
  let cur = "";
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === "\\" && i + 1 < selector.length) {
      cur += c + selector[i + 1];
      i++;
    } else if (c === ",") {
      terms.push(cur);
      cur = "";
    } else {
      cur += c;
    }
  }
  terms.push(cur);
  for (const term of terms) {
    if (term.includes("!=")) continue;
    const eq = term.indexOf("=");
    if (eq < 0) continue;
    const lhs = term.slice(0, eq).trim();
    if (lhs !== field) continue;
    let rhs = term.slice(eq + 1);
    if (rhs.startsWith("=")) rhs = rhs.slice(1);
    return unescapeValue(rhs);
  }
  return undefined;
}

function unescapeValue(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      out += s[i + 1];
      i++;
    } else {
      out += c;
    }
  }
  return out;
}
