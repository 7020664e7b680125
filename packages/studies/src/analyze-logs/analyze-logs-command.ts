// `informer analyze-logs <file…>`: reads kube-apiserver logs (httplog, audit, traces, the simulator's lines),
// attributes the load and lists the slow requests; `--json`, `--report`.
import { createReadStream, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseCommandLine, UsageError } from "@informer-ts/apimachinery";
import { outputFileFlag } from "../cli-flags.js";
import { aggregateLoad, type LoadAnalysis } from "./load-aggregator.js";
import { renderLoadReport } from "./load-report.js";
import { formatLoadAnalysis } from "./load-table.js";
import { ApiserverLogReader } from "./log-reader.js";

/** Where the command writes: the tables to `out`, notes to `err`. */
export interface AnalyzeLogsIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * Reads every line of `files` (`-` is standard input) into one {@link ApiserverLogReader} and aggregates it. A file
 * that cannot be opened or read rejects with an error naming it.
 */
export async function analyzeLogFiles(
  files: readonly string[],
  options: { readonly top?: number; readonly slowMs?: number; readonly stdin?: NodeJS.ReadableStream } = {},
): Promise<LoadAnalysis> {
  const reader = new ApiserverLogReader();
  for (const file of files) {
    const input: NodeJS.ReadableStream =
      file === "-" ? (options.stdin ?? process.stdin) : createReadStream(file, { encoding: "utf8" });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    const failed = new Promise<never>((_, reject) =>
      input.once("error", (err: NodeJS.ErrnoException) =>
        reject(new Error(`cannot read ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`)),
      ),
    );
    failed.catch(() => {});
    const read = (async () => {
      for await (const line of lines) reader.push(file, line);
    })();
    await Promise.race([read, failed]);
  }
  return aggregateLoad(files, reader.result(), options);
}

/** Runs `informer analyze-logs <args…>` and returns the exit status; bad flags throw a `UsageError`. */
export async function analyzeLogsCommand(args: readonly string[], io: AnalyzeLogsIo): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: "string" },
      report: { type: "string" },
      top: { type: "string", default: "10" },
      "slow-ms": { type: "string", default: "500" },
    },
  });
  if (positionals.length === 0)
    throw new UsageError("no log file given (informer analyze-logs <file…>; - reads stdin)");
  const top = Number(values.top);
  if (!Number.isInteger(top) || top < 1) throw new UsageError(`--top must be an integer ≥ 1, got "${values.top}"`);
  const slowMs = Number(values["slow-ms"]);
  if (!Number.isFinite(slowMs) || slowMs < 0)
    throw new UsageError(`--slow-ms must be a number ≥ 0, got "${values["slow-ms"]}"`);
  outputFileFlag(values, "json");
  outputFileFlag(values, "report");
  const analysis = await analyzeLogFiles(positionals, { top, slowMs });
  io.out(formatLoadAnalysis(analysis));
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(analysis, null, 2)}\n`);
    io.out(`wrote ${values.json}\n`);
  }
  if (values.report !== undefined) {
    writeFileSync(values.report, renderLoadReport(analysis));
    io.out(`wrote ${values.report}\n`);
  }
  if (analysis.requests === 0 && analysis.traceCount === 0)
    io.err("informer analyze-logs: no request and no trace found in the input\n");
  return 0;
}
