// Service-account tokens through the engine (in-process, FakeClock): TokenRequest (`TestValidateTokenRequest` of
// pkg/apis/authentication/validation, `TokenREST.Create` of pkg/registry/core/serviceaccount/storage/token.go),
// TokenReview of the issued tokens (pkg/serviceaccount/jwt_test.go's `TestTokenGenerateAndValidate` cases: valid,
// wrong audience, expired, deleted service account, bound pod gone) and the ServiceAccount admission plugin's token
// volume (plugin/pkg/admission/serviceaccount/admission_test.go).
import { type KubeObject, StatusError } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

const T0 = Date.parse("2026-03-01T10:00:00Z");
const SA = "serviceaccounts";
const PODS = "pods";
const REVIEWS = "tokenreviews.authentication.k8s.io";

async function engine() {
  const clock = new FakeClock(T0);
  const e = new SimApiServer({ clock, rand: seededRand(3), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  const sa = await e.create(SA, "default", { metadata: { name: "mount-test" } } as KubeObject);
  return { clock, e, sa };
}

function tokenRequest(e: SimApiServer, spec: Record<string, unknown>, name = "mount-test"): Promise<KubeObject> {
  return e.create(SA, "default", { metadata: { name }, spec } as unknown as KubeObject, { subresource: "token" });
}

async function review(e: SimApiServer, token: string, audiences?: string[]) {
  const r = await e.create(REVIEWS, "", {
    metadata: {},
    spec: { token, ...(audiences !== undefined && { audiences }) },
  } as unknown as KubeObject);
  return (r as unknown as { status: Record<string, unknown> }).status;
}

const tokenOf = (tr: KubeObject) => (tr as unknown as { status: { token: string } }).status.token;

async function rejected(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe("TokenRequest (serviceaccounts/<name>/token)", () => {
  it("TestValidateTokenRequest: expirationSeconds defaults to 3600, is at least 600 and at most 2^32", async () => {
    const { e } = await engine();
    const ok = (await tokenRequest(e, {})) as unknown as {
      spec: { expirationSeconds: number; audiences: string[] };
      status: { expirationTimestamp: string };
    };
    expect(ok.spec.expirationSeconds).toBe(3600);
    expect(ok.spec.audiences).toEqual(["https://kubernetes.default.svc.cluster.local"]);
    expect(ok.status.expirationTimestamp).toBe("2026-03-01T11:00:00Z");
    expect((await tokenRequest(e, { expirationSeconds: 600 })).kind).toBe("TokenRequest");
    for (const [seconds, message] of [
      [-1, "may not specify a duration less than 10 minutes"],
      [0, "may not specify a duration less than 10 minutes"],
      [599, "may not specify a duration less than 10 minutes"],
      [2 ** 32 + 1, "may not specify a duration larger than 2^32 seconds"],
    ] as const) {
      const err = await rejected(tokenRequest(e, { expirationSeconds: seconds }));
      expect(err.code).toBe(422);
      expect(err.message).toContain(message);
    }
  });

  it("the token is a JWT with upstream's claims shape, bound to a pod when asked", async () => {
    const { e, sa } = await engine();
    const pod = await e.create(PODS, "default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i" }] },
    } as KubeObject);
    const tr = await tokenRequest(e, {
      audiences: ["api", "vault"],
      boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: pod.metadata?.uid },
    });
    const [header, payload, signature] = tokenOf(tr).split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toMatchObject({ alg: "RS256" });
    expect(signature!.length).toBeGreaterThan(300);
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    expect(claims).toMatchObject({
      aud: ["api", "vault"],
      iss: "https://kubernetes.default.svc.cluster.local",
      sub: "system:serviceaccount:default:mount-test",
      iat: T0 / 1000,
      nbf: T0 / 1000,
      exp: T0 / 1000 + 3600,
      "kubernetes.io": {
        namespace: "default",
        serviceaccount: { name: "mount-test", uid: sa.metadata?.uid },
        pod: { name: "p", uid: pod.metadata?.uid },
      },
    });
    expect(typeof claims.jti).toBe("string");
  });

  it("TokenREST.Create: unknown service account 404, unbindable kind 400, stale bound uid 409", async () => {
    const { e } = await engine();
    expect((await rejected(tokenRequest(e, {}, "nobody"))).code).toBe(404);
    const kind = await rejected(
      tokenRequest(e, { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "x" } }),
    );
    expect(kind.code).toBe(400);
    expect(kind.message).toBe("cannot bind token to object of type v1, Kind=ConfigMap");
    expect(
      (await rejected(tokenRequest(e, { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "x" } }))).code,
    ).toBe(404);
    await e.create(PODS, "default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i" }] },
    } as KubeObject);
    const stale = await rejected(
      tokenRequest(e, { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: "old-uid" } }),
    );
    expect(stale.code).toBe(409);
    expect(stale.message).toContain("the UID in the bound object reference (old-uid) does not match the UID in record");
  });
});

describe("TokenReview of issued tokens (TestTokenGenerateAndValidate)", () => {
  it("valid token authenticates as the service account with its groups", async () => {
    const { e, sa } = await engine();
    const status = await review(e, tokenOf(await tokenRequest(e, {})));
    expect(status).toMatchObject({
      authenticated: true,
      user: {
        username: "system:serviceaccount:default:mount-test",
        uid: sa.metadata?.uid,
        groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      },
      audiences: ["https://kubernetes.default.svc.cluster.local"],
    });
  });

  it("wrong audience, expired, tampered, deleted service account and deleted bound pod do not authenticate", async () => {
    const { e, clock } = await engine();
    const token = tokenOf(await tokenRequest(e, { audiences: ["api"], expirationSeconds: 600 }));
    expect(await review(e, token, ["other"])).toMatchObject({ error: "token audiences are invalid" });
    expect(await review(e, token, ["api"])).toMatchObject({ authenticated: true });
    const [h, p, s] = token.split(".");
    const forged = JSON.parse(Buffer.from(p!, "base64url").toString());
    forged.sub = "system:serviceaccount:kube-system:admin";
    expect(
      await review(e, `${h}.${Buffer.from(JSON.stringify(forged)).toString("base64url")}.${s}`, ["api"]),
    ).toMatchObject({
      error: "invalid signature",
    });
    expect(await review(e, "not-a-jwt")).toMatchObject({
      error: "token is not a JWT (want three dot-separated parts)",
    });
    await clock.step(601_000);
    expect(await review(e, token, ["api"])).toMatchObject({ error: "token has expired" });

    const fresh = tokenOf(await tokenRequest(e, {}));
    await e.delete(SA, "default", "mount-test");
    expect((await review(e, fresh)).authenticated).toBeUndefined();
  });

  it("a token bound to a pod stops authenticating once the pod is gone", async () => {
    const { e } = await engine();
    await e.create(PODS, "default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "i" }] },
    } as KubeObject);
    const token = tokenOf(await tokenRequest(e, { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p" } }));
    expect(await review(e, token)).toMatchObject({
      authenticated: true,
      user: { extra: { "authentication.kubernetes.io/pod-name": ["p"] } },
    });
    await e.delete(PODS, "default", "p", { gracePeriodSeconds: 0 });
    expect(await review(e, token)).toMatchObject({
      error: "pod default/p bound to the token was deleted or recreated",
    });
  });
});

describe("ServiceAccount admission (plugin/pkg/admission/serviceaccount)", () => {
  type Spec = {
    serviceAccountName?: string;
    volumes?: { name: string; projected?: { sources: unknown[] } }[];
    containers: { volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
    initContainers?: { volumeMounts?: { name: string; mountPath: string }[] }[];
  };
  const create = async (e: SimApiServer, spec: Record<string, unknown>, name = "p") =>
    (await e.create(PODS, "default", { metadata: { name }, spec } as KubeObject)).spec as unknown as Spec;

  it("TestAutomountsAPIToken: a kube-api-access volume (token, ca.crt, namespace) mounted in every container", async () => {
    const { e } = await engine();
    const spec = await create(e, {
      serviceAccountName: "mount-test",
      initContainers: [{ name: "i", image: "i" }],
      containers: [{ name: "c", image: "i" }],
    });
    const vol = spec.volumes?.find((v) => v.name.startsWith("kube-api-access-"));
    expect(vol?.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vol?.projected?.sources).toEqual([
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
      {
        downwardAPI: {
          items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
        },
      },
    ]);
    const mount = { name: vol?.name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
    expect(spec.containers[0]?.volumeMounts).toEqual([mount]);
    expect(spec.initContainers?.[0]?.volumeMounts).toEqual([mount]);
  });

  it("TestRespectsExistingMount, automountServiceAccountToken false, and no service account: no volume", async () => {
    const { e } = await engine();
    const own = { name: "mine", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
    const existing = await create(e, {
      serviceAccountName: "mount-test",
      volumes: [{ name: "mine", emptyDir: {} }],
      containers: [{ name: "c", image: "i", volumeMounts: [own] }],
    });
    expect(existing.volumes?.map((v) => v.name)).toEqual(["mine"]);
    const off = await create(
      e,
      {
        serviceAccountName: "mount-test",
        automountServiceAccountToken: false,
        containers: [{ name: "c", image: "i" }],
      },
      "p2",
    );
    expect(off.volumes).toBeUndefined();
    // The simulator without a cluster has no `default` ServiceAccount: the pod is admitted as it is.
    const none = await create(e, { containers: [{ name: "c", image: "i" }] }, "p3");
    expect(none.volumes).toBeUndefined();
    await e.create(SA, "default", { metadata: { name: "quiet" }, automountServiceAccountToken: false } as KubeObject);
    const saOff = await create(e, { serviceAccountName: "quiet", containers: [{ name: "c", image: "i" }] }, "p4");
    expect(saOff.volumes).toBeUndefined();
  });

  it("admission.serviceAccountTokenVolume false turns the plugin off (--disable-admission-plugins=ServiceAccount)", async () => {
    const e = new SimApiServer({
      clock: new FakeClock(T0),
      progressNotifyIntervalMs: 0,
      compactionIntervalMs: 0,
      admission: { serviceAccountTokenVolume: false },
    });
    await e.create(SA, "default", { metadata: { name: "default" } } as KubeObject);
    const spec = await create(e, { containers: [{ name: "c", image: "i" }] });
    expect(spec.volumes).toBeUndefined();
  });
});
