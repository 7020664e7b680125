// Builds docs/client-go-map.md and docs/differences.md from the per-package docs, so each table lives in one
// place (next to the behaviour it describes). `node scripts/docs-index.mjs` rewrites them; `--check` exits 1
// when they are stale (test/docs.test.ts runs the check).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const docs = fileURLToPath(new URL("../docs/", import.meta.url));
const sources = [
  ["instrumentation.md", "@informer-ts/instrumentation"],
  ["workqueue.md", "@informer-ts/workqueue"],
  ["apimachinery.md", "@informer-ts/apimachinery"],
  ["cache-store.md", "@informer-ts/cache — keys, store, indexer, listers"],
  ["cache-fifo.md", "@informer-ts/cache — FIFOs and delta processing"],
  ["reflector.md", "@informer-ts/cache — pager and reflector"],
  ["streams.md", "@informer-ts/cache — watcher() stream and operators"],
  ["informer.md", "@informer-ts/cache — shared informers and factory"],
  ["client.md", "@informer-ts/client"],
  ["controller.md", "@informer-ts/controller"],
  ["sim-apiserver.md", "@informer-ts/sim-apiserver — engine"],
  ["sim-apiserver-http.md", "@informer-ts/sim-apiserver — HTTP"],
  ["sim-cluster.md", "@informer-ts/sim-cluster"],
];

/** The body of every `## …` section whose heading matches `re`, with its heading demoted to `###`. */
function sections(text, re) {
  const out = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("## ") || !re.test(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith("## ")) j++;
    out.push([`### ${lines[i].slice(3)}`, ...lines.slice(i + 1, j)].join("\n").trimEnd());
    i = j - 1;
  }
  return out;
}

// Only docs that git tracks count, so a working tree with unfinished docs builds what a clean clone builds.
const tracked = new Set(
  execFileSync("git", ["ls-files", "docs"], { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" })
    .split("\n")
    .map((f) => f.replace(/^docs\//, "")),
);

function build(title, intro, re) {
  const parts = [`# ${title}`, "", intro, ""];
  for (const [file, label] of sources) {
    if (!tracked.has(file)) continue;
    const text = readFileSync(docs + file, "utf8");
    const found = sections(text, re);
    if (found.length === 0) continue;
    parts.push(`## ${label} ([${file}](${file}))`, "", ...found.map((s) => `${s}\n`));
  }
  return `${parts.join("\n").trimEnd()}\n`;
}

const outputs = {
  "client-go-map.md": build(
    "client-go map",
    "Every ported symbol beside its client-go, apimachinery or kube-apiserver original. Generated from the map " +
      "section of each package doc by `node scripts/docs-index.mjs`; edit those, not this file.",
    /\bmap\b/i,
  ),
  "differences.md": build(
    "Differences from client-go and kube-apiserver",
    "Every deliberate difference, collected from the package docs by `node scripts/docs-index.mjs`; edit those, " +
      "not this file.",
    /^## Differences/i,
  ),
};

const args = process.argv.slice(2);
if (args.includes("-h") || args.includes("--help")) {
  console.log(
    "usage: node scripts/docs-index.mjs [--check]\n" +
      "Rewrites docs/client-go-map.md and docs/differences.md from the package docs; with --check, only says whether\n" +
      "they are stale (exit 1) and writes nothing.",
  );
  process.exit(0);
}
const unknownArgs = args.filter((a) => a !== "--check");
if (unknownArgs.length > 0) {
  console.error(`docs-index: unknown argument ${unknownArgs.join(" ")} (usage: node scripts/docs-index.mjs [--check])`);
  process.exit(2);
}
const check = args.includes("--check");
let stale = false;
for (const [name, content] of Object.entries(outputs)) {
  let current = "";
  try {
    current = readFileSync(docs + name, "utf8");
  } catch {}
  if (current === content) continue;
  if (check) {
    stale = true;
    console.error(`docs/${name} is stale: run node scripts/docs-index.mjs`);
  } else {
    writeFileSync(docs + name, content);
  }
}
process.exitCode = stale ? 1 : 0;
