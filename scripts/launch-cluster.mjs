// `pnpm apiserver --cluster …`: the simulated apiserver with a cluster inside it, as two processes on real time.
// sim-apiserver may not import sim-cluster (ARCHITECTURE.md: sim-cluster is a client of any apiserver, as kwok is),
// so the two meet here: the apiserver starts with --kubeconfig-out, and once it prints "listening on" the
// `sim-cluster` command starts against that kubeconfig. Ctrl-C reaches both (same process group); when either
// exits, the other is stopped, and the exit status is the apiserver's (or the cluster's when it failed first).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Flags that belong to the cluster (with their value, when they take one); `--cluster-seed` is sim-cluster's `--seed`. */
const CLUSTER_FLAGS = {
  "--nodes": true,
  "--stages": true,
  "--controllers": true,
  "--cluster-seed": true,
  "--no-events": false,
};

/** Splits `args` into the apiserver's and the cluster's flags (`--cluster` itself is dropped). */
export function splitClusterArgs(args) {
  const apiserver = [];
  const cluster = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--cluster") continue;
    const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (!(name in CLUSTER_FLAGS)) {
      apiserver.push(a);
      continue;
    }
    const rename = name === "--cluster-seed" ? "--seed" : name;
    if (a.includes("=")) cluster.push(`${rename}=${a.slice(a.indexOf("=") + 1)}`);
    else {
      cluster.push(rename);
      if (CLUSTER_FLAGS[name] && i + 1 < args.length) cluster.push(args[++i]);
    }
  }
  return { apiserver, cluster };
}

/** Runs both; resolves with the exit status. `entries`: the built apiserver and sim-cluster entry files. */
export function launchCluster({ args, apiserverEntry, clusterEntry, cwd, say }) {
  const { apiserver, cluster } = splitClusterArgs(args);
  let kubeconfig;
  const at = apiserver.findIndex((a) => a === "--kubeconfig-out" || a.startsWith("--kubeconfig-out="));
  if (at >= 0) kubeconfig = apiserver[at].includes("=") ? apiserver[at].split("=")[1] : apiserver[at + 1];
  else {
    kubeconfig = join(mkdtempSync(join(tmpdir(), "informer-ts-cluster-")), "kubeconfig.yaml");
    apiserver.push("--kubeconfig-out", kubeconfig);
  }
  return new Promise((resolve) => {
    const server = spawn(process.execPath, [apiserverEntry, ...apiserver], {
      stdio: ["inherit", "pipe", "inherit"],
      cwd,
    });
    let node;
    let status;
    const ignore = () => {};
    process.on("SIGINT", ignore);
    const forward = () => {
      server.kill("SIGTERM");
      node?.kill("SIGTERM");
    };
    process.on("SIGTERM", forward);
    const finish = () => {
      if (server.exitCode === null && server.signalCode === null) return;
      if (node !== undefined && node.exitCode === null && node.signalCode === null) return;
      process.off("SIGINT", ignore);
      process.off("SIGTERM", forward);
      resolve(status ?? 0);
    };
    let buffered = "";
    server.stdout.setEncoding("utf8").on("data", (chunk) => {
      process.stdout.write(chunk);
      if (node !== undefined) return;
      buffered += chunk;
      if (!/listening on \S+/.test(buffered)) return;
      node = spawn(process.execPath, [clusterEntry, "--kubeconfig", kubeconfig, ...cluster], { stdio: "inherit", cwd });
      node.on("exit", (code, signal) => {
        if (code !== 0 && signal === null && status === undefined) {
          say(`sim-cluster exited ${code}: stopping the apiserver`);
          status = code ?? 1;
        }
        server.kill("SIGTERM");
        finish();
      });
    });
    server.on("exit", (code, signal) => {
      status ??= code ?? 128 + (signal === "SIGINT" ? 2 : 15);
      node?.kill("SIGTERM");
      finish();
    });
  });
}
