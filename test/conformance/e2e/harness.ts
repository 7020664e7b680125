// The harness of the re-implemented Kubernetes e2e tests: one simulated apiserver per test file, served over real
// HTTP on 127.0.0.1 (SimHttpServer + EngineBackend on the real clock, controllers reacting at once), and
// @kubernetes/client-node 1.4 as the client, as `pnpm apiserver` would be used by a user's test.
import { KubeClient } from "@informer-ts/client";
import { type Clock, RealClock, seededRand } from "@informer-ts/clock";
import { newConsoleLogger } from "@informer-ts/instrumentation";
import type * as K8s from "@kubernetes/client-node";
import { expect } from "vitest";
import { SimApiServer } from "../../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../../packages/sim-apiserver/src/http/engine-backend.js";
import { SimHttpServer } from "../../../packages/sim-apiserver/src/http/server.js";
import { type ClusterOptions, SimClusterRuntime } from "../../../packages/sim-cluster/src/cluster.js";
import { DEFAULT_POD_STAGES, type Stage } from "../../../packages/sim-cluster/src/kubelet/stage.js";

/**
 * The kubelet stand-in's stages for the e2e tests: the defaults, but a deleted pod goes half a second after its
 * `deletionTimestamp` is set, not at the end of its grace period — the tests' nginx exits on SIGTERM at once, so a
 * real kubelet confirms the deletion as soon as the container stopped.
 */
export const E2E_STAGES: readonly Stage[] = DEFAULT_POD_STAGES.map((s) =>
  s.name === "pod-delete" ? { ...s, delay: { durationMs: 500 } } : s,
);

/** The pod annotation whose value names a behaviour a test gives its pods (`notTerminate`, `imagePullFails`). */
export const BEHAVIOUR_ANNOTATION = "e2e/behaviour";

/**
 * `stages` where the stages named in `names` do not apply to a pod annotated with {@link BEHAVIOUR_ANNOTATION}
 * `behaviour`: how a test makes pods that, as upstream's containers, never end (`notTerminate` without `pod-complete`)
 * or never start (`imagePullFails` without `pod-running`).
 */
export function stagesExceptFor(stages: readonly Stage[], names: readonly string[], behaviour: string): Stage[] {
  return stages.map((s) =>
    names.includes(s.name)
      ? {
          ...s,
          selector: {
            ...s.selector,
            matchExpressions: [
              ...(s.selector?.matchExpressions ?? []),
              { key: `.metadata.annotations.${BEHAVIOUR_ANNOTATION}`, operator: "NotIn" as const, values: [behaviour] },
            ],
          },
        }
      : s,
  );
}

/**
 * Upstream's `notTerminate` pods sleep forever: a pod with this annotation neither completes nor fails under
 * {@link notTerminatingStages}.
 */
export const NOT_TERMINATE = { [BEHAVIOUR_ANNOTATION]: "notTerminate" };

/** `stages` with their `pod-complete` and `pod-fail` stages passing over pods annotated {@link NOT_TERMINATE}. */
export function notTerminatingStages(stages: readonly Stage[]): Stage[] {
  return stagesExceptFor(stages, ["pod-complete", "pod-fail"], "notTerminate");
}

export type ClientNode = typeof K8s;

/** A running simulator and clients for it. */
export interface E2eCluster {
  readonly k8s: ClientNode;
  readonly engine: SimApiServer;
  /** The simulator's and its cluster's clock (ahead of the wall clock at a `clockRate` above 1). */
  readonly clock: Clock;
  readonly url: string;
  readonly kc: K8s.KubeConfig;
  readonly core: K8s.CoreV1Api;
  readonly objects: K8s.KubernetesObjectApi;
  /** A raw request against the server (paths the generated clients do not cover, Accept headers). */
  raw(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawAnswer>;
  /** A fresh namespace for one test (the framework's `f.Namespace`). */
  namespace(base: string): Promise<string>;
  close(): Promise<void>;
}

export interface RawAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly text: string;
}

let nsCounter = 0;

/** Options of {@link startE2eCluster}. */
export interface E2eClusterOptions {
  /**
   * Also run the cluster's moving parts (`pnpm apiserver --cluster`: nodes, scheduler, kubelet stand-in, the
   * workload, service-account and root-CA controllers of `@informer-ts/sim-cluster`), over HTTP in real time.
   */
  readonly cluster?: Pick<ClusterOptions, "nodes" | "rootCA" | "controllers" | "jobPodFailureBackoffMs" | "logger"> & {
    /** The kubelet stand-in's stages (default the defaults, a deleted pod going after half a second). */
    readonly stages?: readonly Stage[];
  };
  /**
   * Runs the simulator and its cluster on a {@link RealClock} this many times as fast as the wall clock (default 1):
   * with 60, a CronJob's every-minute schedule fires every wall second, pod stages and heartbeats are 60 times
   * shorter, and the server's timestamps move ahead of the wall clock. The client still runs on the wall clock.
   */
  readonly clockRate?: number;
  /**
   * Serve with `--authorization-mode=RBAC` and bearer-token authentication, as a real cluster: the clients
   * authenticate as the cluster admin (`E2E_ADMIN_TOKEN`, user `e2e-admin` in `system:masters`); a request without
   * a credential is 401.
   */
  readonly rbac?: boolean;
}

/** The admin's bearer token of a harness started with `rbac: true`. */
export const E2E_ADMIN_TOKEN = "e2e-admin-token";

/** Starts a simulator for one test file. */
export async function startE2eCluster(options: E2eClusterOptions = {}): Promise<E2eCluster> {
  const k8s = await import("@kubernetes/client-node");
  const clock = new RealClock({ rate: options.clockRate ?? 1 });
  const rbac = options.rbac === true;
  const engine = new SimApiServer({
    clock,
    rand: seededRand(1234),
    progressNotifyIntervalMs: 0,
    ...(rbac && { authorization: "RBAC" as const }),
  });
  const server = new SimHttpServer({
    backend: new EngineBackend(engine),
    clock,
    ...(rbac && { auth: { tokens: [`${E2E_ADMIN_TOKEN},e2e-admin,0,system:masters`] } }),
  });
  const url = await server.start();
  let stopCluster = async () => {};
  if (options.cluster !== undefined) {
    // As `pnpm apiserver --cluster` does: one unthrottled client over HTTP for every component.
    const client = new KubeClient({ server: url, qps: -1, ...(rbac && { token: E2E_ADMIN_TOKEN }) });
    const runtime = new SimClusterRuntime({
      client,
      clock,
      ...options.cluster,
      nodes: options.cluster.nodes ?? 2,
      stages: options.cluster.stages ?? E2E_STAGES,
      logger: options.cluster.logger ?? newConsoleLogger("sim-cluster", "error"),
    });
    const stop = new AbortController();
    const running = runtime.run(stop.signal);
    stopCluster = async () => {
      stop.abort();
      await running;
      await client.close();
    };
  }
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "sim", server: url, skipTLSVerify: true }],
    users: [{ name: "sim", ...(rbac && { token: E2E_ADMIN_TOKEN }) }],
    contexts: [{ name: "sim", cluster: "sim", user: "sim" }],
    currentContext: "sim",
  });
  const raw = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(rbac && { authorization: `Bearer ${E2E_ADMIN_TOKEN}` }),
        ...headers,
      },
      ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  };
  return {
    k8s,
    engine,
    clock,
    url,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
    raw,
    async namespace(base) {
      const name = `${base}-${++nsCounter}`;
      await kc.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name } } });
      return name;
    },
    async close() {
      await stopCluster();
      await server.close();
      engine.stop();
    },
  };
}

/**
 * `wait.PollUntilContextTimeout` as `expect.poll`: calls `check` every `intervalMs` (default 100) until it returns a
 * value other than undefined, and returns that value; fails the test naming the last result after `timeoutMs`
 * (default 10 s). An error thrown by `check` fails at once.
 */
export async function pollFor<T>(
  check: () => Promise<T | undefined>,
  { intervalMs = 100, timeoutMs = 10_000 }: { readonly intervalMs?: number; readonly timeoutMs?: number } = {},
): Promise<T> {
  let value: T | undefined;
  // expect.poll retries a callback that throws; upstream's condition functions abort the wait on an error, so the
  // error ends the poll here and is rethrown.
  let failure: { readonly err: unknown } | undefined;
  await expect
    .poll(
      async () => {
        try {
          value = await check();
        } catch (err) {
          failure = { err };
        }
        return failure !== undefined ? failure : value;
      },
      { interval: intervalMs, timeout: timeoutMs },
    )
    .toBeDefined();
  if (failure !== undefined) throw failure.err;
  return value as T;
}

/** The HTTP status code of a client-node error (its `code`), or undefined. */
export function codeOf(err: unknown): number | undefined {
  const c = (err as { code?: unknown } | undefined)?.code;
  return typeof c === "number" ? c : undefined;
}

/** Awaits `p` and returns the status code it failed with (throws when it succeeded). */
export async function failsWith(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
  } catch (err) {
    return codeOf(err);
  }
  throw new Error("expected the request to fail");
}

/** The watch events of `path` until `until` says stop (or `timeoutMs`, default 10 s, pass), with their objects. */
export async function watchEvents(
  c: E2eCluster,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  until: (events: ReadonlyArray<{ type: string; object: K8s.KubernetesObject }>) => boolean,
  act: () => Promise<void> = async () => {},
  timeoutMs = 10_000,
): Promise<Array<{ type: string; object: K8s.KubernetesObject }>> {
  const events: Array<{ type: string; object: K8s.KubernetesObject }> = [];
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  const watch = new c.k8s.Watch(c.kc);
  const ctrl = await watch.watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object });
      if (until(events)) resolveDone();
    },
    () => resolveDone(),
  );
  try {
    await act();
    const timer = setTimeout(resolveDone, timeoutMs);
    await done;
    clearTimeout(timer);
  } finally {
    ctrl.abort();
  }
  return events;
}
