// The webhook admission plugins on an in-process engine (FakeClock) calling a local HTTPS webhook server:
// the dispatchers' behaviours of mutating/dispatcher.go and validating/dispatcher.go, and a property that a
// denied write changes nothing.
import type { KubeObject } from "@informer-ts/apimachinery";
import type { FakeClock } from "@informer-ts/clock";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES } from "../../resources.js";
import { expectDeniedWritesChangeNothing, pluginEngine, sizedWrites } from "../plugin-engine.test-util.js";
import { type Answer, patchOf, type ReceivedReview, startTestWebhookServer } from "./webhook-server.test-util.js";

const VALIDATING = "validatingwebhookconfigurations.admissionregistration.k8s.io";
const MUTATING = "mutatingwebhookconfigurations.admissionregistration.k8s.io";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function setup(handler: (r: ReceivedReview) => Answer) {
  const e = pluginEngine();
  const server = await startTestWebhookServer(handler);
  closers.push(async () => {
    e.stop();
    await server.close();
  });
  const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    clientConfig: { url: server.url(path), caBundle: server.caBundle },
    rules: [
      { operations: ["CREATE", "UPDATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  });
  const configure = async (kind: "validating" | "mutating", webhooks: unknown[], name = "config") =>
    e.create(kind === "validating" ? VALIDATING : MUTATING, "", { metadata: { name }, webhooks } as KubeObject);
  return { e, server, hook, configure };
}

const cm = (name: string, data: Record<string, string> = {}): KubeObject =>
  ({ metadata: { name }, data }) as KubeObject;

async function rejection(p: Promise<unknown>): Promise<{ code?: number; message?: string; reason?: string }> {
  try {
    await p;
  } catch (err) {
    return (err as { status: { code?: number; message?: string; reason?: string } }).status;
  }
  throw new Error("expected a rejection");
}

describe("ValidatingAdmissionWebhook", () => {
  it("denies with the webhook's Status under upstream's prefix; nothing is stored", async () => {
    const { e, configure, hook } = await setup(() => ({
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: "no configmaps today" },
    }));
    await configure("validating", [hook("deny.example.com", "/deny")]);
    const s = await rejection(e.create("configmaps", "default", cm("a")));
    expect(s).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'admission webhook "deny.example.com" denied the request: no configmaps today',
    });
    await expect(e.get("configmaps", "default", "a")).rejects.toMatchObject({ status: { code: 404 } });
  });

  it("a refusal without a message or a code is a 400 'without explanation'", async () => {
    const { e, configure, hook } = await setup(() => ({ allowed: false }));
    await configure("validating", [hook("deny.example.com", "/deny")]);
    expect(await rejection(e.create("configmaps", "default", cm("a")))).toMatchObject({
      code: 400,
      message: 'admission webhook "deny.example.com" denied the request without explanation',
    });
  });

  it("sends an AdmissionReview v1 of the validated object; warnings go to the request", async () => {
    const { e, server, configure, hook } = await setup(() => ({ allowed: true, warnings: ["careful"] }));
    await configure("validating", [hook("ok.example.com", "/ok")]);
    const ctx = { warnings: [] as string[] };
    await e.create("configmaps", "default", cm("a", { k: "v" }), ctx);
    expect(ctx.warnings).toEqual(["careful"]);
    const r = server.received[0]!.request;
    expect(r.operation).toBe("CREATE");
    expect(r.kind).toEqual({ group: "", version: "v1", kind: "ConfigMap" });
    expect((r.object as { data: unknown }).data).toEqual({ k: "v" });
    expect((r.object as { metadata: { uid?: string } }).metadata.uid).toBeTruthy();
    const stored = await e.get("configmaps", "default", "a");
    expect(stored.metadata?.uid).toBe((r.object as { metadata: { uid?: string } }).metadata.uid);
  });

  it("a failing call is a 500 under Fail and skipped under Ignore", async () => {
    const { e, configure, hook } = await setup(() => ({ raw: "not json" }));
    await configure("validating", [hook("broken.example.com", "/broken")]);
    const s = await rejection(e.create("configmaps", "default", cm("a")));
    expect(s.code).toBe(500);
    expect(s.message).toMatch(
      /^Internal error occurred: failed calling webhook "broken.example.com": failed to call webhook: decoding/,
    );
    await configure("validating", [hook("broken.example.com", "/broken", { failurePolicy: "Ignore" })], "config2");
    await e.delete(VALIDATING, "", "config");
    await e.create("configmaps", "default", cm("b"));
  });

  it("a response for another uid is an invalid response", async () => {
    const { e, configure, hook } = await setup(() => ({ uid: "other", allowed: true }));
    await configure("validating", [hook("uid.example.com", "/uid")]);
    expect((await rejection(e.create("configmaps", "default", cm("a")))).message).toContain(
      "received invalid webhook response: expected response.uid=",
    );
  });

  it("a call past timeoutSeconds on the engine's clock fails with context deadline exceeded", async () => {
    const { e, server, configure, hook } = await setup(() => "hang");
    await configure("validating", [hook("slow.example.com", "/slow", { timeoutSeconds: 2 })]);
    const p = rejection(e.create("configmaps", "default", cm("a")));
    await server.whenReceived(1);
    await (e.clock as FakeClock).step(2000);
    const s = await p;
    expect(s.code).toBe(500);
    expect(s.message).toContain(`Post "${server.url("/slow")}?timeout=2s": context deadline exceeded`);
  });

  it("a webhook with side effects fails a dry-run request; one without is called with dryRun", async () => {
    const { e, server, configure, hook } = await setup(() => ({ allowed: true }));
    // v1 only accepts None/NoneOnDryRun: an older configuration with Unknown side effects is stored as is.
    const r = BUILTIN_RESOURCES.find((x) => x.resource === "validatingwebhookconfigurations")!;
    e.storage.insert(r, "", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "legacy" },
      webhooks: [hook("unknown.example.com", "/unknown", { sideEffects: "Unknown" })],
    } as KubeObject);
    expect(await rejection(e.create("configmaps", "default", cm("a"), { dryRun: true }))).toMatchObject({
      code: 400,
      message: 'admission webhook "unknown.example.com" does not support dry run',
    });
    expect(server.received).toHaveLength(0);
    await e.delete(VALIDATING, "", "legacy");
    await configure("validating", [hook("none.example.com", "/none", { sideEffects: "NoneOnDryRun" })]);
    await e.create("configmaps", "default", cm("a"), { dryRun: true });
    expect(server.received.map((x) => x.request.dryRun)).toEqual([true]);
  });

  it("matchPolicy Equivalent matches another served version (named in the review); Exact does not", async () => {
    const { e, server, configure, hook } = await setup(() => ({ allowed: true }));
    const hpaRule = [
      {
        operations: ["CREATE"],
        apiGroups: ["autoscaling"],
        apiVersions: ["v1"],
        resources: ["horizontalpodautoscalers"],
      },
    ];
    await configure("validating", [
      hook("equivalent.example.com", "/equivalent", { rules: hpaRule }),
      hook("exact.example.com", "/exact", { rules: hpaRule, matchPolicy: "Exact" }),
    ]);
    await e.create("horizontalpodautoscalers.v2.autoscaling", "default", {
      metadata: { name: "h" },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "d", apiVersion: "apps/v1" },
        minReplicas: 1,
        maxReplicas: 2,
      },
    } as KubeObject);
    expect(server.received.map((x) => x.path)).toEqual(["/equivalent"]);
    const r = server.received[0]!.request;
    expect(r.resource.version).toBe("v1");
    expect(r.requestResource.version).toBe("v2");
  });

  it("objectSelector, namespaceSelector and matchConditions pick the requests", async () => {
    const { e, server, configure, hook } = await setup(() => ({ allowed: true }));
    await e.create("namespaces", "", { metadata: { name: "prod", labels: { env: "prod" } } } as KubeObject);
    await e.create("namespaces", "", { metadata: { name: "dev", labels: { env: "dev" } } } as KubeObject);
    await configure("validating", [
      hook("selected.example.com", "/selected", {
        namespaceSelector: { matchLabels: { env: "prod" } },
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        matchConditions: [{ name: "not-b", expression: "object.metadata.name != 'b'" }],
      }),
    ]);
    await e.create("configmaps", "prod", cm("a"));
    await e.create("configmaps", "prod", cm("b"));
    await e.create("configmaps", "dev", cm("c"));
    await e.create("configmaps", "prod", { metadata: { name: "d", labels: { skip: "yes" } } } as KubeObject);
    expect(server.received.map((x) => (x.request.object as { metadata: { name: string } }).metadata.name)).toEqual([
      "a",
    ]);
  });

  it("matchConditions see request.userInfo: the username and groups the AdmissionReview carries", async () => {
    const { e, server, configure, hook } = await setup(() => ({ allowed: true }));
    await configure("validating", [
      hook("masters.example.com", "/masters", {
        matchConditions: [{ name: "masters", expression: "'system:masters' in request.userInfo.groups" }],
      }),
      hook("others.example.com", "/others", {
        matchConditions: [{ name: "not-admin", expression: "request.userInfo.username != 'system:admin'" }],
      }),
    ]);
    await e.create("configmaps", "default", cm("a"));
    expect(server.received.map((x) => x.path)).toEqual(["/masters"]);
    expect(server.received[0]!.request.userInfo).toEqual({
      username: "system:admin",
      groups: ["system:masters", "system:authenticated"],
    });
  });

  it("deletes send the stored object as oldObject; the configuration resources are never sent", async () => {
    const { e, server, configure, hook } = await setup((r) =>
      r.request.operation === "DELETE" ? { allowed: false, status: { message: "keep it" } } : { allowed: true },
    );
    await e.create("configmaps", "default", cm("a", { k: "v" }));
    await configure("validating", [
      hook("all.example.com", "/all", {
        rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }],
      }),
    ]);
    expect((await rejection(e.delete("configmaps", "default", "a"))).message).toBe(
      'admission webhook "all.example.com" denied the request: keep it',
    );
    const del = server.received.find((x) => x.request.operation === "DELETE")!;
    expect((del.request.oldObject as { data: unknown }).data).toEqual({ k: "v" });
    await e.delete(VALIDATING, "", "config");
    expect(server.received.every((x) => x.request.resource.resource === "configmaps")).toBe(true);
  });
});

describe("MutatingAdmissionWebhook", () => {
  it("applies JSON patches in order, then the object is defaulted and validated again", async () => {
    const { e, configure, hook } = await setup((r) => {
      if (r.path === "/bad") return { allowed: true, ...patchOf([{ op: "add", path: "/data/bad key", value: "x" }]) };
      const data = (r.request.object as { data?: Record<string, string> }).data ?? {};
      return { allowed: true, ...patchOf([{ op: "add", path: `/data/k${Object.keys(data).length}`, value: "v" }]) };
    });
    await configure("mutating", [hook("one.example.com", "/add"), hook("two.example.com", "/add")]);
    const stored = await e.create("configmaps", "default", cm("a"));
    expect(stored.data).toEqual({ k0: "v", k1: "v" });
    await configure("mutating", [hook("bad.example.com", "/bad")], "config2");
    const s = await rejection(e.create("configmaps", "default", cm("b")));
    expect(s.code).toBe(422);
    expect(s.message).toContain("bad key");
  });

  it("reinvocationPolicy IfNeeded calls a webhook again when a later one changed the object", async () => {
    const { e, server, configure, hook } = await setup((r) => {
      const labels = (r.request.object as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
      if (r.path === "/first") return { allowed: true };
      if (labels.second === "yes") return { allowed: true };
      return { allowed: true, ...patchOf([{ op: "add", path: "/metadata/labels", value: { second: "yes" } }]) };
    });
    await configure("mutating", [
      hook("first.example.com", "/first", { reinvocationPolicy: "IfNeeded" }),
      hook("second.example.com", "/second", { reinvocationPolicy: "IfNeeded" }),
      hook("never.example.com", "/never"),
    ]);
    await e.create("configmaps", "default", cm("a"));
    expect(server.received.map((x) => x.path)).toEqual(["/first", "/second", "/never", "/first"]);
  });

  it("a patch from a validating webhook is an invalid response", async () => {
    const { e, configure, hook } = await setup(() => ({ allowed: true, ...patchOf([]) }));
    await configure("validating", [hook("patcher.example.com", "/p")]);
    expect((await rejection(e.create("configmaps", "default", cm("a")))).message).toContain(
      "validating webhook may not return response.patch",
    );
  });
});

describe("a denied write", () => {
  it("changes no storage, resourceVersion or watch history", async () => {
    const server = await startTestWebhookServer((r) => {
      const data = (r.request.object as { data?: Record<string, string> } | null)?.data ?? {};
      return r.request.operation === "DELETE" || Object.keys(data).length > 2
        ? { allowed: false, status: { message: "too big" } }
        : { allowed: true };
    });
    closers.push(() => server.close());
    await fc.assert(
      fc.asyncProperty(sizedWrites(6), async (writes) => {
        const e = pluginEngine();
        try {
          await expectDeniedWritesChangeNothing(
            e,
            writes,
            (err) => String((err as Error).message).includes('admission webhook "size.example.com" denied'),
            async () => {
              await e.create(VALIDATING, "", {
                metadata: { name: "size" },
                webhooks: [
                  {
                    name: "size.example.com",
                    clientConfig: { url: server.url("/size"), caBundle: server.caBundle },
                    rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
                    sideEffects: "None",
                    admissionReviewVersions: ["v1"],
                  },
                ],
              } as KubeObject);
            },
          );
        } finally {
          e.stop();
        }
      }),
      { numRuns: 25 },
    );
  });
});
