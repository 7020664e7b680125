import {
  type FieldError,
  type KubeObject,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
} from "@informer-ts/apimachinery";
import { rfc3339Seconds } from "../object-util.js";
import type { BoundObject, ServiceAccountClaims, ServiceAccountTokenIssuer } from "./token-issuer.js";

/** The core objects a token names (`serviceaccounts`, `pods`, `secrets` namespaced; `nodes` with namespace ""). */
export type TokenObjectLookup = (
  resource: "serviceaccounts" | "pods" | "secrets" | "nodes",
  namespace: string,
  name: string,
) => KubeObject | undefined;

/** What {@link ServiceAccountTokens.authenticate} makes of a bearer token. */
export type TokenAuthentication =
  | {
      readonly ok: true;
      readonly username: string;
      readonly uid: string;
      readonly groups: readonly string[];
      readonly extra: Readonly<Record<string, readonly string[]>>;
      /** The requested audiences the token is for. */
      readonly audiences: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

/** `SetDefaults_TokenRequestSpec`: one hour. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
/** `ValidateTokenRequest`'s minimum: ten minutes. */
const MIN_TOKEN_EXPIRATION_SECONDS = 600;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
/** The bound kinds a TokenRequest may name (`pkg/registry/core/serviceaccount/storage/token.go`). */
const BINDABLE = new Set(["Pod", "Secret", "Node"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function boundOf(o: KubeObject): BoundObject {
  return { name: o.metadata?.name ?? "", uid: o.metadata?.uid ?? "" };
}

/**
 * The engine's service-account tokens: `POST serviceaccounts/<name>/token` (kube-apiserver's `TokenREST.Create`,
 * `pkg/registry/core/serviceaccount/storage/token.go`, with `ValidateTokenRequest` of
 * `pkg/apis/authentication/validation`) and the TokenReview answer for those tokens (the service-account token
 * authenticator of `pkg/serviceaccount/jwt.go` and the legacy/bound validator of `pkg/serviceaccount/claims.go`:
 * signature, expiry, audience, and the service account and bound object still there with the same uid).
 */
export class ServiceAccountTokens {
  constructor(
    readonly issuer: ServiceAccountTokenIssuer,
    private readonly lookup: TokenObjectLookup,
  ) {}

  /**
   * Answers a TokenRequest for service account `name`: `spec.expirationSeconds` defaults to 3600 and is at least 600
   * (422 `may not specify a duration less than 10 minutes`), `spec.audiences` default to the issuer, a
   * `spec.boundObjectRef` names a Pod, Secret or Node that exists (400 for another kind, 404 when absent, 409 when
   * its uid differs). 404 when the service account does not exist. Returns the TokenRequest with `status.token` and
   * `status.expirationTimestamp`; nothing is stored.
   */
  request(namespace: string, name: string, body: KubeObject): KubeObject {
    const spec = isObject(body.spec) ? body.spec : {};
    const given = spec.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
    const errs: FieldError[] = [];
    const expirationSeconds = typeof given === "number" ? given : Number.NaN;
    if (!Number.isInteger(expirationSeconds)) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        badValue: String(given),
        detail: "must be an integer",
      });
    } else if (expirationSeconds < MIN_TOKEN_EXPIRATION_SECONDS) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.expirationSeconds",
        badValue: expirationSeconds,
        detail: "may not specify a duration less than 10 minutes",
      });
    } else if (expirationSeconds > MAX_TOKEN_EXPIRATION_SECONDS) {
      errs.push({
        type: "FieldValueTooLong",
        field: "spec.expirationSeconds",
        detail: "may not specify a duration larger than 2^32 seconds",
      });
    }
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a) => typeof a === "string") : [];
    if (errs.length > 0) throw newInvalid({ group: "authentication.k8s.io", kind: "TokenRequest" }, name, errs);
    const sa = this.lookup("serviceaccounts", namespace, name);
    if (sa === undefined) throw newNotFound({ group: "", resource: "serviceaccounts" }, name);
    const ref = isObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
    let bound: { pod?: BoundObject; secret?: BoundObject; node?: BoundObject } = {};
    if (ref !== undefined) {
      const kind = String(ref.kind ?? "");
      const apiVersion = String(ref.apiVersion ?? "v1");
      if (!BINDABLE.has(kind) || apiVersion !== "v1")
        throw newBadRequest(`cannot bind token to object of type ${apiVersion}, Kind=${kind}`);
      const refName = String(ref.name ?? "");
      const resource = kind === "Pod" ? "pods" : kind === "Secret" ? "secrets" : "nodes";
      const target = this.lookup(resource, kind === "Node" ? "" : namespace, refName);
      if (target === undefined) throw newNotFound({ group: "", resource }, refName);
      const wantUid = typeof ref.uid === "string" ? ref.uid : "";
      if (wantUid !== "" && wantUid !== target.metadata?.uid) {
        throw newConflict(
          { group: "", resource: kind },
          refName,
          `the UID in the bound object reference (${wantUid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      bound =
        kind === "Pod"
          ? { pod: boundOf(target) }
          : kind === "Secret"
            ? { secret: boundOf(target) }
            : { node: boundOf(target) };
      if (kind === "Pod") {
        const nodeName = (target.spec as { nodeName?: unknown } | undefined)?.nodeName;
        const node = typeof nodeName === "string" && nodeName !== "" ? this.lookup("nodes", "", nodeName) : undefined;
        if (node !== undefined) bound.node = boundOf(node);
      }
    }
    const { token, claims } = this.issuer.issue({
      namespace,
      serviceAccount: boundOf(sa),
      audiences: audiences.length === 0 ? [this.issuer.issuer] : audiences,
      expirationSeconds,
      ...bound,
    });
    return {
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { name, namespace, creationTimestamp: null },
      spec: { ...spec, audiences: claims.aud, expirationSeconds },
      status: { token, expirationTimestamp: rfc3339Seconds(claims.exp * 1000) },
    } as unknown as KubeObject;
  }

  /**
   * A token for the projected volume of `pod` (3607 s, as kubelet asks for), issued at `issuedAtMs`, bound to the pod
   * and its node; none when the service account does not exist.
   */
  podToken(pod: KubeObject, serviceAccount: string, issuedAtMs: number): string | undefined {
    const ns = pod.metadata?.namespace ?? "";
    const sa = this.lookup("serviceaccounts", ns, serviceAccount);
    if (sa === undefined) return undefined;
    const nodeName = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
    const node = typeof nodeName === "string" && nodeName !== "" ? this.lookup("nodes", "", nodeName) : undefined;
    return this.issuer.issue({
      namespace: ns,
      serviceAccount: boundOf(sa),
      audiences: [this.issuer.issuer],
      expirationSeconds: 3607,
      issuedAtMs,
      pod: boundOf(pod),
      ...(node !== undefined && { node: boundOf(node) }),
    }).token;
  }

  /**
   * The `status` of a TokenReview of `token`: authenticated as `system:serviceaccount:<ns>:<name>` with the groups
   * `system:serviceaccounts`, `system:serviceaccounts:<ns>`, `system:authenticated` and the pod extras, when the
   * token verifies and its service account (and bound pod or secret) still exist with the uids it names; otherwise
   * `authenticated: false` with the reason in `error`.
   */
  review(token: string, audiences: readonly string[]): Record<string, unknown> {
    const a = this.authenticate(token, audiences);
    if (!a.ok) return { user: {}, error: a.error };
    const { ok: _ok, audiences: aud, ...user } = a;
    return { authenticated: true, user: { ...user, groups: [...user.groups] }, audiences: aud };
  }

  /**
   * The service-account token authenticator: the user a bearer `token` stands for (see {@link review}), or why it
   * does not authenticate. `audiences` empty: the issuer (kube-apiserver's `--api-audiences` default).
   */
  authenticate(token: string, audiences: readonly string[] = []): TokenAuthentication {
    const v = this.issuer.verify(token, audiences);
    if (!v.ok) return { ok: false, error: v.error };
    const c: ServiceAccountClaims = v.claims;
    const k = c["kubernetes.io"];
    const sa = this.lookup("serviceaccounts", k.namespace, k.serviceaccount.name);
    if (sa === undefined)
      return { ok: false, error: `service account ${k.namespace}/${k.serviceaccount.name} not found` };
    if (sa.metadata?.uid !== k.serviceaccount.uid || sa.metadata?.deletionTimestamp !== undefined)
      return { ok: false, error: `service account ${k.serviceaccount.name} was deleted or recreated` };
    for (const [kind, resource] of [
      ["pod", "pods"],
      ["secret", "secrets"],
    ] as const) {
      const b = k[kind];
      if (b === undefined) continue;
      const o = this.lookup(resource, k.namespace, b.name);
      if (o === undefined || o.metadata?.uid !== b.uid || o.metadata?.deletionTimestamp !== undefined)
        return { ok: false, error: `${kind} ${k.namespace}/${b.name} bound to the token was deleted or recreated` };
    }
    const extra: Record<string, string[]> = {};
    if (k.pod !== undefined) {
      extra["authentication.kubernetes.io/pod-name"] = [k.pod.name];
      extra["authentication.kubernetes.io/pod-uid"] = [k.pod.uid];
    }
    if (k.node !== undefined) {
      extra["authentication.kubernetes.io/node-name"] = [k.node.name];
      extra["authentication.kubernetes.io/node-uid"] = [k.node.uid];
    }
    extra["authentication.kubernetes.io/credential-id"] = [`JTI=${c.jti}`];
    const wanted = audiences.length === 0 ? [this.issuer.issuer] : audiences;
    return {
      ok: true,
      username: c.sub,
      uid: k.serviceaccount.uid,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${k.namespace}`, "system:authenticated"],
      extra,
      audiences: c.aud.filter((a) => wanted.includes(a)),
    };
  }
}
