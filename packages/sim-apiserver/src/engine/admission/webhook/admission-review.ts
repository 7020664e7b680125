import type { KubeObject } from "@informer-ts/apimachinery";
import type { ReviewUser } from "../../registry/reviews.js";
import type { SimResource } from "../../resources.js";
import { kindOf, type PolicyRequest } from "../policy/policy-request.js";

/** `request/admissionreview.go`'s `CreateV1AdmissionReview`: the `admission.k8s.io/v1` body posted to a webhook. */
export function admissionReview(
  uid: string,
  req: PolicyRequest,
  object: KubeObject | undefined,
  matched: SimResource,
  user: ReviewUser,
): Record<string, unknown> {
  const r = req.resource;
  const options =
    req.operation === "CREATE"
      ? "CreateOptions"
      : req.operation === "UPDATE"
        ? "UpdateOptions"
        : req.operation === "DELETE"
          ? "DeleteOptions"
          : undefined;
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: kindOf(matched),
      resource: { group: matched.group, version: matched.version, resource: matched.resource },
      ...(req.subresource !== "" && { subResource: req.subresource }),
      requestKind: kindOf(r),
      requestResource: { group: r.group, version: r.version, resource: r.resource },
      ...(req.subresource !== "" && { requestSubResource: req.subresource }),
      ...(req.name !== "" && { name: req.name }),
      ...(req.namespace !== "" && { namespace: req.namespace }),
      operation: req.operation,
      userInfo: { username: user.username, groups: [...user.groups] },
      object: object ?? null,
      oldObject: req.oldObject ?? null,
      dryRun: req.dryRun,
      ...(options !== undefined && { options: { apiVersion: "meta.k8s.io/v1", kind: options } }),
    },
  };
}

/** A webhook's verdict, decoded from its AdmissionReview (`VerifyAdmissionResponse`). */
export interface ReviewResponse {
  readonly allowed: boolean;
  /** `response.status` (the denial's Status). */
  readonly result?: Record<string, unknown>;
  /** The decoded JSON patch (mutating webhooks only). */
  readonly patch?: unknown;
  readonly warnings: readonly string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks and decodes a webhook's answer to review `uid`: the `admission.k8s.io/v1` `AdmissionReview` kind, a
 * `response` with the same `uid`, a `patchType` of `JSONPatch` with any `patch` (base64 JSON), no patch from a
 * validating webhook. Throws an `Error` with upstream's wording otherwise.
 */
export function decodeReviewResponse(body: unknown, uid: string, mutating: boolean): ReviewResponse {
  if (!isObject(body)) throw new Error("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview");
  if (body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview")
    throw new Error(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(body.apiVersion ?? "")}, Kind=${String(body.kind ?? "")}`,
    );
  const res = body.response;
  if (!isObject(res)) throw new Error("webhook response was absent");
  if (res.uid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(res.uid ?? "")}`);
  const warnings = Array.isArray(res.warnings) ? res.warnings.filter((w): w is string => typeof w === "string") : [];
  const out: { -readonly [K in keyof ReviewResponse]: ReviewResponse[K] } = { allowed: res.allowed === true, warnings };
  if (isObject(res.status)) out.result = res.status;
  const patch = typeof res.patch === "string" && res.patch !== "" ? res.patch : undefined;
  if (patch !== undefined) {
    if (!mutating) throw new Error("validating webhook may not return response.patch");
    if (res.patchType === undefined || res.patchType === "")
      throw new Error("webhook returned response.patch but not response.patchType");
    if (res.patchType !== "JSONPatch")
      throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(res.patchType)}`);
    out.patch = JSON.parse(Buffer.from(patch, "base64").toString("utf8"));
  } else if (res.patchType !== undefined && res.patchType !== "" && !mutating) {
    throw new Error("validating webhook may not return response.patchType");
  }
  return out;
}
