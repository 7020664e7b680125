// Detection of the external clients the interop tests drive, and a helper that turns "tool missing" into a
// visible skip (console.warn + ctx.skip(reason), counted as skipped in the summary) — or a failure when
// INTEROP_REQUIRED is set. CI alone does not make them required: kubectl comes with the machine image, not from
// .ci/run (Debian's kubernetes-client is 1.20, too old to stand in), so a CI machine without it skips, visibly.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ToolCheck {
  readonly ok: boolean;
  /** Why the tool cannot be used (when !ok). */
  readonly reason: string;
  readonly version: string;
}

/** kubectl on PATH (or $KUBECTL), answering `version --client`. */
export function checkKubectl(): ToolCheck {
  const bin = process.env.KUBECTL ?? "kubectl";
  const r = spawnSync(bin, ["version", "--client"], { encoding: "utf8", timeout: 20_000 });
  if (r.error !== undefined)
    return { ok: false, reason: `kubectl not runnable (${bin}): ${r.error.message}`, version: "" };
  if (r.status !== 0)
    return { ok: false, reason: `kubectl version --client exited ${r.status}: ${r.stderr}`, version: "" };
  return { ok: true, reason: "", version: r.stdout.split("\n")[0] ?? "" };
}

/** The Debian python3-kubernetes client importable from /usr/bin/python3 (or $INTEROP_PYTHON). */
export function checkPythonKubernetes(): ToolCheck {
  const bin = process.env.INTEROP_PYTHON ?? "/usr/bin/python3";
  const r = spawnSync(bin, ["-c", "import kubernetes; print(kubernetes.__version__)"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  if (r.error !== undefined) return { ok: false, reason: `${bin} not runnable: ${r.error.message}`, version: "" };
  if (r.status !== 0) {
    return {
      ok: false,
      reason: `${bin} cannot import kubernetes (apt-get install python3-kubernetes): ${r.stderr.trim().split("\n").pop()}`,
      version: "",
    };
  }
  return { ok: true, reason: "", version: r.stdout.trim() };
}

export function pythonBin(): string {
  return process.env.INTEROP_PYTHON ?? "/usr/bin/python3";
}

export function kubectlBin(): string {
  return process.env.KUBECTL ?? "kubectl";
}

/** True when interop tests must run (a missing tool is then a failure, not a skip). */
export function interopRequired(): boolean {
  const v = process.env.INTEROP_REQUIRED ?? "";
  return v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

/**
 * Call at the start of a test: when the tool is missing, prints the reason and skips the test with it (or throws
 * when {@link interopRequired}).
 */
export function requireTool(check: ToolCheck, ctx: { skip: (note?: string) => void }): void {
  if (check.ok) return;
  const msg = `interop test skipped: ${check.reason}`;
  if (interopRequired()) throw new Error(`${msg} (INTEROP_REQUIRED is set, so this is a failure)`);
  console.warn(msg);
  ctx.skip(msg);
}

/** A fresh temporary directory (kubectl --cache-dir, kubeconfigs). */
export function freshDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `informer-ts-${prefix}-`));
}
