/**
 * `naming.GetNameFromCallsite` for JavaScript: `file:line` of the first stack frame outside `ignored` path
 * fragments (the reflector ignores its own package; test files never count as ignored), or `fallback` when the
 * stack cannot be read. The file is shown from after its last `/src/`, else by its base name.
 */
export function nameFromCallsite(ignored: readonly string[], fallback = "<unknown>"): string {
  const stack = new Error().stack;
  if (stack === undefined) return fallback;
  const lines = stack.split("\n").slice(1);
  for (const line of lines) {
    const m = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):\d+\)?\s*$/.exec(line.trim());
    if (m === null) continue;
    const file = m[1]!.replace(/^file:\/\//, "");
    if (file.startsWith("node:") || file.includes("node_modules/vitest") || file.includes("node_modules/@vitest")) {
      continue;
    }
    if (!/\.test\.[cm]?[jt]s$/.test(file) && ignored.some((fragment) => file.includes(fragment))) continue;
    const src = file.lastIndexOf("/src/");
    const short = src >= 0 ? file.slice(src + 5) : file.slice(file.lastIndexOf("/") + 1);
    return `${short}:${m[2]}`;
  }
  return fallback;
}
