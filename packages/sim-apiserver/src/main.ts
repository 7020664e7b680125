#!/usr/bin/env node
// `pnpm apiserver`: the simulated kube-apiserver in the foreground. Prints exactly one line
// `listening on <url>` on stdout when ready (hints go to stderr); exits 0 on SIGINT/SIGTERM, 2 on bad flags or seed
// files.
import { createWriteStream, type WriteStream } from "node:fs";
import { resolve } from "node:path";
import { realClock, seededRand } from "@informer-ts/clock";
import { newJsonLineLogger, newLineLogger } from "@informer-ts/instrumentation";
import { createCliBackend } from "./cli/cli-backend.js";
import { parseApiserverFlags } from "./cli/cli-flags.js";
import { helpFor } from "./cli/cli-usage.js";
import { generatePki, loadSeedFile, parseTokenEntry, SimHttpServer, writeKubeconfig } from "./http/index.js";

async function main(argv: readonly string[]): Promise<number> {
  const help = helpFor(argv);
  if (help !== undefined) {
    process.stdout.write(help);
    return 0;
  }
  let flags: ReturnType<typeof parseApiserverFlags>;
  try {
    flags = parseApiserverFlags(argv);
  } catch (err) {
    process.stderr.write(
      `apiserver: ${err instanceof Error ? err.message : String(err)}\n(pnpm apiserver --help lists the flags)\n`,
    );
    return 2;
  }
  let seed: ReturnType<typeof loadSeedFile> | undefined;
  if (flags.seed !== undefined) {
    try {
      seed = loadSeedFile(flags.seed);
    } catch (err) {
      process.stderr.write(`apiserver: --seed: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
  }
  const rand = flags.randSeed === undefined ? undefined : seededRand(flags.randSeed);
  let cli: Awaited<ReturnType<typeof createCliBackend>>;
  let audit: WriteStream | undefined;
  try {
    if (flags.auditLog !== undefined && flags.auditLog !== "-") {
      audit = await openAppend(flags.auditLog);
      const file = flags.auditLog;
      let reported = false;
      audit.on("error", (err) => {
        if (!reported) process.stderr.write(`apiserver: --audit-log ${file}: ${err.message} (audit lines dropped)\n`);
        reported = true;
      });
    }
    const auditOut = audit ?? (flags.auditLog === "-" ? process.stderr : undefined);
    cli = await createCliBackend(flags, {
      clock: realClock,
      ...(rand !== undefined && { rand }),
      logger: newLineLogger("apiserver", (line) => process.stderr.write(`${line}\n`), "info"),
      ...(auditOut !== undefined && { auditLog: (line: string) => auditOut.write(`${line}\n`) }),
    });
    if (seed !== undefined) await cli.seed(seed);
  } catch (err) {
    process.stderr.write(`apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const pki = flags.tls ? generatePki() : undefined;
  const server = new SimHttpServer({
    backend: cli.backend,
    host: flags.host,
    port: flags.port,
    ...(pki !== undefined && { tls: pki }),
    ...((flags.tokens.length > 0 || flags.clientCertAuth) && {
      auth: { tokens: flags.tokens, clientCertificates: flags.clientCertAuth },
    }),
    clock: realClock,
    metrics: cli.metrics,
    metricsProvider: cli.metrics,
    admin: cli.admin,
    ...(flags.httpLog && { logger: newJsonLineLogger((line) => process.stderr.write(`${line}\n`)) }),
  });
  let url: string;
  try {
    url = await server.start();
  } catch (err) {
    process.stderr.write(`apiserver: cannot listen: ${err instanceof Error ? err.message : String(err)}\n`);
    await cli.stop();
    return 1;
  }
  if (flags.kubeconfigOut !== undefined) {
    const first = flags.tokens[0] === undefined ? undefined : parseTokenEntry(flags.tokens[0]).token;
    writeKubeconfig(flags.kubeconfigOut, {
      server: url,
      ...(pki !== undefined && { ca: pki.ca.cert }),
      ...(first !== undefined && { token: first }),
      ...(first === undefined &&
        flags.clientCertAuth &&
        pki !== undefined && {
          clientCert: pki.client.cert,
          clientKey: pki.client.key,
        }),
    });
  }
  // The handlers go in before the first line: a supervisor that signals as soon as it reads it gets a clean stop.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  process.stdout.write(`listening on ${url}\n`);
  process.stderr.write(kubeconfigHint(url, flags));
  await stopped;
  await server.close();
  await cli.stop();
  if (audit !== undefined) await new Promise<void>((resolve) => audit.end(resolve));
  return 0;
}

/**
 * What to tell the user after "listening on": where the kubeconfig is (and the kubectl line that uses it), or that
 * none was written and how to reach the server without one.
 */
function kubeconfigHint(url: string, flags: ReturnType<typeof parseApiserverFlags>): string {
  if (flags.kubeconfigOut !== undefined) {
    const path = resolve(flags.kubeconfigOut);
    return `apiserver: kubeconfig written to ${path}\napiserver: try: kubectl --kubeconfig ${path} get namespaces\n`;
  }
  const token = flags.tokens[0] === undefined ? undefined : parseTokenEntry(flags.tokens[0]).token;
  if (token === undefined && flags.clientCertAuth) {
    return (
      "apiserver: no kubeconfig written, and the generated client certificate is only handed out in one: " +
      "add --kubeconfig-out <file>\n"
    );
  }
  const extra = (flags.tls ? " --insecure-skip-tls-verify" : "") + (token !== undefined ? ` --token ${token}` : "");
  return (
    "apiserver: no kubeconfig written (add --kubeconfig-out <file> to get one)\n" +
    `apiserver: try: kubectl --server ${url}${extra} get namespaces\n`
  );
}

/** Opens a file for appending; rejects (naming the file) when it cannot be opened. */
function openAppend(path: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const s = createWriteStream(path, { flags: "a" });
    s.once("open", () => resolve(s));
    s.once("error", (err) => reject(new Error(`--audit-log ${path}: ${err.message}`)));
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`apiserver: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
