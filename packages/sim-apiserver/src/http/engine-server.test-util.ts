// Test-only: the HTTP face served by the real engine on 127.0.0.1:0, with the admin API and /metrics wired exactly
// as the `apiserver` command wires them (createCliBackend), on a clock the test chooses.
import type { KubeObject } from "@informer-ts/apimachinery";
import { type Clock, seededRand } from "@informer-ts/clock";
import { newJsonLineLogger } from "@informer-ts/instrumentation";
import { type CliBackend, createCliBackend } from "../cli/cli-backend.js";
import type { ApiserverFlags } from "../cli/cli-flags.js";
import type { SimApiServer } from "../engine/sim-apiserver.js";
import { SimHttpServer, type SimHttpServerOptions } from "./server.js";

export interface EngineServer {
  readonly engine: SimApiServer;
  readonly cli: CliBackend;
  readonly server: SimHttpServer;
  readonly url: string;
  /** Lines written by the engine's audit log and the server's httplog. */
  readonly auditLines: string[];
  readonly httpLogLines: string[];
  close(): Promise<void>;
}

export const DEFAULT_TEST_FLAGS: ApiserverFlags = {
  host: "127.0.0.1",
  port: 0,
  tls: false,
  tokens: [],
  clientCertAuth: false,
  authorizationMode: "AlwaysAllow",
  watchList: true,
  httpLog: false,
  minRequestTimeoutSeconds: 1800,
  faults: [],
  help: false,
};

export async function startEngineServer(
  clock: Clock,
  flags: Partial<ApiserverFlags> = {},
  server: Partial<SimHttpServerOptions> = {},
): Promise<EngineServer> {
  const auditLines: string[] = [];
  const httpLogLines: string[] = [];
  const f = { ...DEFAULT_TEST_FLAGS, ...flags };
  const cli = await createCliBackend(f, { clock, rand: seededRand(11), auditLog: (l) => auditLines.push(l) });
  const http = new SimHttpServer({
    backend: cli.backend,
    clock,
    metrics: cli.metrics,
    metricsProvider: cli.metrics,
    admin: cli.admin,
    logger: newJsonLineLogger((line) => httpLogLines.push(line)),
    ...server,
  });
  const url = await http.start();
  return {
    engine: cli.engine,
    cli,
    server: http,
    url,
    auditLines,
    httpLogLines,
    async close() {
      await http.close();
      await cli.stop();
    },
  };
}

export function configMap(name: string, data: Record<string, string> = { k: "v" }, namespace = "default"): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data };
}
