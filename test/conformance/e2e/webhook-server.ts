// An in-process stand-in for agnhost's `webhook` command (test/images/agnhost/webhook): an HTTPS server answering
// AdmissionReview v1 on the paths the e2e webhook tests register, with the same decisions and patches.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Clock } from "@informer-ts/clock";

type Review = {
  request: {
    uid: string;
    operation: string;
    object?: Record<string, unknown> | null;
    oldObject?: Record<string, unknown> | null;
  };
};
type Verdict = { allowed: boolean; message?: string; patch?: unknown[] };

/** `admitPods`: unwanted container names and labels deny; a `wait-forever` container hangs the call. */
function pods(r: Review, hang: () => Promise<Verdict>): Verdict | Promise<Verdict> {
  const pod = (r.request.object ?? {}) as {
    metadata?: { labels?: Record<string, string> };
    spec?: { containers?: { name?: string }[] };
  };
  let msg = "";
  for (const c of pod.spec?.containers ?? []) {
    if (c.name?.includes("webhook-disallow")) msg += "\nthe pod contains unwanted container name; ";
    if (c.name?.includes("wait-forever")) return hang();
  }
  if (pod.metadata?.labels?.["webhook-e2e-test"] === "webhook-disallow") msg += "\nthe pod contains unwanted label; ";
  return msg === "" ? { allowed: true } : { allowed: false, message: msg };
}

function dataOf(o: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const d = o?.data;
  return typeof d === "object" && d !== null ? (d as Record<string, unknown>) : {};
}

/** `admitConfigMaps`: a configmap with `webhook-e2e-test: webhook-disallow` in its data is denied. */
function configMaps(r: Review): Verdict {
  if (r.request.operation === "DELETE") return { allowed: true };
  return dataOf(r.request.object)["webhook-e2e-test"] === "webhook-disallow"
    ? { allowed: false, message: "the configmap contains unwanted key and value" }
    : { allowed: true };
}

/** `mutateConfigmaps` / `mutateCustomResource`: stage 1 after `mutation-start`, stage 2 after stage 1. */
function mutateData(r: Review): Verdict {
  const data = dataOf(r.request.object);
  let patch: unknown[] | undefined;
  if (data["mutation-start"] === "yes") patch = [{ op: "add", path: "/data/mutation-stage-1", value: "yes" }];
  if (data["mutation-stage-1"] === "yes") patch = [{ op: "add", path: "/data/mutation-stage-2", value: "yes" }];
  return { allowed: true, ...(patch !== undefined && { patch }) };
}

/** `mutatePods`: adds the `webhook-added-init-container` init container (left for the server to default). */
function mutatePods(r: Review): Verdict {
  if ((r.request.object as { metadata?: { name?: string } })?.metadata?.name !== "webhook-to-be-mutated")
    return { allowed: true };
  return {
    allowed: true,
    patch: [
      {
        op: "add",
        path: "/spec/initContainers",
        value: [{ image: "webhook-added-image", name: "webhook-added-init-container", resources: {} }],
      },
    ],
  };
}

/** `admitCustomResource`: unwanted data denies; deleting one with `webhook-nondeletable` data is denied. */
function customResource(r: Review): Verdict {
  if (r.request.operation === "DELETE")
    return dataOf(r.request.oldObject)["webhook-e2e-test"] === "webhook-nondeletable"
      ? { allowed: false, message: "the custom resource cannot be deleted because it contains unwanted key and value" }
      : { allowed: true };
  return dataOf(r.request.object)["webhook-e2e-test"] === "webhook-disallow"
    ? { allowed: false, message: "the custom resource contains unwanted data" }
    : { allowed: true };
}

/** `admitCRD`: a definition labelled `webhook-e2e-test: webhook-disallow` is denied. */
function crd(r: Review): Verdict {
  const labels = (r.request.object as { metadata?: { labels?: Record<string, string> } })?.metadata?.labels;
  return labels?.["webhook-e2e-test"] === "webhook-disallow"
    ? { allowed: false, message: "the crd contains unwanted label" }
    : { allowed: true };
}

/** A running stand-in: its port, what it was asked, and its stop. */
export interface WebhookServer {
  readonly port: number;
  /** Each call's path and operation, in order. */
  readonly calls: { path: string; operation: string; name: string }[];
  close(): Promise<void>;
}

/**
 * Starts the stand-in on 127.0.0.1 with `cert`/`key`. Delays (`/always-allow-delay-5s`, a hanging pod) run on
 * `clock`, the simulator's, so a fast clock rate shortens them as it shortens the webhooks' timeouts.
 */
export async function startWebhookServer(cert: string, key: string, clock: Clock): Promise<WebhookServer> {
  const calls: WebhookServer["calls"] = [];
  const pending = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        pending.delete(done);
        resolve();
      };
      pending.add(done);
      clock.afterFunc(ms, done);
    });
  const routes: Record<string, (r: Review) => Verdict | Promise<Verdict>> = {
    "/always-deny": () => ({ allowed: false, message: "this webhook denies all requests" }),
    "/always-allow-delay-5s": async () => {
      await sleep(5000);
      return { allowed: true };
    },
    "/pods": (r) =>
      pods(r, async () => {
        await sleep(60_000);
        return { allowed: true };
      }),
    "/configmaps": configMaps,
    "/mutating-configmaps": mutateData,
    "/mutating-pods": mutatePods,
    "/custom-resource": customResource,
    "/mutating-custom-resource": mutateData,
    "/crd": crd,
    "/add-label": () => ({
      allowed: true,
      patch: [{ op: "add", path: "/metadata/labels", value: { "added-label": "yes" } }],
    }),
  };
  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const path = new URL(req.url ?? "/", "https://x").pathname;
      const route = routes[path];
      if (route === undefined || req.method !== "POST") {
        res.writeHead(404).end("not found");
        return;
      }
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      const obj = (review.request.object ?? review.request.oldObject) as { metadata?: { name?: string } } | null;
      calls.push({ path, operation: review.request.operation, name: obj?.metadata?.name ?? "" });
      const v = await route(review);
      if (res.destroyed) return;
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: v.allowed };
      if (v.message !== undefined) response.status = { message: v.message };
      if (v.patch !== undefined) {
        response.patchType = "JSONPatch";
        response.patch = Buffer.from(JSON.stringify(v.patch)).toString("base64");
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    async close() {
      for (const done of [...pending]) done();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
