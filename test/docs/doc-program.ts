// Turns a TypeScript block of a doc into a program Node can run: the block is transpiled (types erased) into
// `node_modules/.cache/doc-programs/<name>/main.mjs`, beside a `node_modules/@informer-ts/*` that links to the
// workspace packages, so its imports resolve exactly as an installed package's would (through each package's
// `exports` to its built `dist/`). `buildWorkspace()` brings `dist/` up to date first.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineBackend, SimApiServer, SimHttpServer, writeKubeconfig } from "@informer-ts/sim-apiserver";
import ts from "typescript";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The first ```ts block after the heading `heading` (a full `## …` line) of `doc` (path relative to the repo), with
 * the 1-based line of its first code line.
 */
export function blockUnderHeading(doc: string, heading: string): { code: string; line: number } {
  const lines = readFileSync(join(repoRoot, doc), "utf8").split("\n");
  const at = lines.indexOf(heading);
  if (at < 0) throw new Error(`${doc}: no heading ${JSON.stringify(heading)}`);
  for (let i = at + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("## ")) break;
    if (/^```(ts|typescript)\s*$/.test(line)) {
      const end = lines.indexOf("```", i + 1);
      if (end < 0) throw new Error(`${doc}:${i + 1}: unterminated block`);
      return { code: lines.slice(i + 1, end).join("\n"), line: i + 2 };
    }
  }
  throw new Error(`${doc}: no \`\`\`ts block under ${JSON.stringify(heading)}`);
}

/** `tsc -b` of the workspace (incremental: quick when `dist/` is current). Throws with tsc's output on failure. */
export function buildWorkspace(): void {
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const run = spawnSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: repoRoot, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`tsc -b failed:\n${run.stdout}${run.stderr}`);
}

/** Writes `code` as a runnable ES module named `name`; returns the path of its `main.mjs`. */
export function writeDocProgram(name: string, code: string): string {
  const dir = join(repoRoot, "node_modules", ".cache", "doc-programs", name);
  rmSync(dir, { recursive: true, force: true });
  const scope = join(dir, "node_modules", "@informer-ts");
  mkdirSync(scope, { recursive: true });
  for (const pkg of readdirSync(join(repoRoot, "packages"))) {
    symlinkSync(join(repoRoot, "packages", pkg), join(scope, pkg), "dir");
  }
  const out = ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
    reportDiagnostics: true,
  });
  const problems = out.diagnostics ?? [];
  if (problems.length > 0) {
    const text = problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n");
    throw new Error(`cannot transpile doc program ${name}: ${text}`);
  }
  const main = join(dir, "main.mjs");
  writeFileSync(main, out.outputText);
  return main;
}

/** A doc's program compiled to a file, and a simulated apiserver over HTTP with a kubeconfig for it. */
export interface DocProgramRig {
  readonly engine: SimApiServer;
  /** The compiled program (run it with `process.execPath`). */
  readonly program: string;
  /** A kubeconfig for the server (pass it as `KUBECONFIG`). */
  readonly kubeconfig: string;
  close(): Promise<void>;
}

/** Builds the workspace, compiles the block under `heading` of `doc` and starts a simulated apiserver for it. */
export async function startDocProgramRig(doc: string, heading: string, name: string): Promise<DocProgramRig> {
  buildWorkspace();
  const program = writeDocProgram(name, blockUnderHeading(doc, heading).code);
  const engine = new SimApiServer();
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const kubeconfig = join(dir, "kubeconfig.yaml");
  writeKubeconfig(kubeconfig, { server: url });
  return {
    engine,
    program,
    kubeconfig,
    async close() {
      await server.close();
      engine.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
