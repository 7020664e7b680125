// Runs external client processes for the interop tests, with a hard timeout and captured output.
import { type ChildProcess, spawn } from "node:child_process";

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(
  bin: string,
  args: readonly string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** A long-running child whose stdout is read line by line (kubectl get -w). */
export interface Streaming {
  readonly child: ChildProcess;
  /** Resolves when a stdout line matches, rejects after `timeoutMs` with everything seen so far. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  readonly lines: string[];
  stderr(): string;
  /** Kills the child (by its own pid) and resolves when it exited. */
  kill(): Promise<void>;
}

export function spawnStreaming(bin: string, args: readonly string[], env: Record<string, string> = {}): Streaming {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let buf = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    buf += c;
    let i = buf.indexOf("\n");
    while (i >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf("\n");
    }
    for (const w of waiters) w();
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    child,
    lines,
    stderr: () => err,
    waitForLine(re, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find((l) => re.test(l));
          if (hit !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no line matching ${re} within ${timeoutMs} ms; stdout:\n${lines.join("\n")}\nstderr:\n${err}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
