/**
 * The paths of duplicate object keys in a JSON text, in document order, as sigs.k8s.io/json's strict decoder names
 * them (`spec.replicas`, `spec.template.spec.containers[0].name`): `JSON.parse` keeps the last value silently, so
 * the duplicates are found on the text. Assumes `text` is valid JSON (call it after a successful parse); on
 * malformed input it returns what it found so far and never throws. Linear in the text, no allocation per value.
 */
export function duplicateJsonFields(text: string): string[] {
  const out: string[] = [];
  // One frame per open container: object frames hold the keys seen and the current key; array frames the index.
  interface Frame {
    readonly array: boolean;
    readonly path: string;
    keys?: Set<string>;
    key?: string;
    index: number;
  }
  const stack: Frame[] = [];
  const childPath = (f: Frame | undefined): string => {
    if (f === undefined) return "";
    if (f.array) return `${f.path}[${f.index}]`;
    return f.path === "" ? (f.key ?? "") : `${f.path}.${f.key ?? ""}`;
  };
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      let raw = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \ */) {
          raw = true;
          j += 2;
          continue;
        }
        if (d === 0x22) break;
        j++;
      }
      const top = stack[stack.length - 1];
      if (expectKey && top !== undefined && !top.array) {
        let key = text.slice(i + 1, j);
        if (raw) {
          try {
            key = JSON.parse(text.slice(i, j + 1)) as string;
          } catch {
            return out;
          }
        }
        top.keys ??= new Set();
        if (top.keys.has(key)) out.push(top.path === "" ? key : `${top.path}.${key}`);
        else top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */) {
      stack.push({ array: false, path: childPath(stack[stack.length - 1]), index: 0 });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push({ array: true, path: childPath(stack[stack.length - 1]), index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.array === true) top.index++;
      else expectKey = true;
    }
  }
  return out;
}
