import { Agent } from "node:https";
import { isCelError } from "@bufbuild/cel";
import { type KubeObject, newBadRequest, newInternalError, type Status, StatusError } from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import { newUid } from "../../object-util.js";
import { jsonPatch } from "../../registry/patch.js";
import { IN_PROCESS_USER, type ReviewUser } from "../../registry/reviews.js";
import type { SimResource } from "../../resources.js";
import type { MvccStorage } from "../../storage/index.js";
import { toCel } from "../cel/validation.js";
import { type MatchingContext, matchesResources } from "../policy/policy-matching.js";
import { kindOf, type PolicyRequest } from "../policy/policy-request.js";
import { schemaOfResource } from "../policy/policy-schema.js";
import { admissionReview, decodeReviewResponse } from "./admission-review.js";
import { resolveWebhookTarget } from "./service-resolution.js";
import { postReview, WebhookCallError } from "./webhook-client.js";
import { type Webhook, WebhookSource } from "./webhook-source.js";

/** The admission configuration resources no webhook is called for (`rules.IsExemptAdmissionConfigurationResource`). */
const EXEMPT = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** Settings of {@link AdmissionWebhooks}. */
export interface AdmissionWebhooksOptions {
  /** The engine's storage: configurations, namespaces, Services and EndpointSlices are read from it. */
  readonly storage: MvccStorage;
  /** The served resources (the configuration resources, equivalent versions). */
  readonly resources: () => readonly SimResource[];
  /** Where `timeoutSeconds` is measured. */
  readonly clock: Clock;
  /** Where AdmissionReview uids are drawn from. */
  readonly rand: Rand;
}

/** A write as the webhooks see it: the policy attributes plus the requesting user. */
export interface WebhookRequest extends PolicyRequest {
  /** Absent: the in-process superuser. */
  readonly user?: ReviewUser;
}

/** `request.userInfo` as the AdmissionReview carries it: the username and groups. */
function userInfoOf(user: ReviewUser): { username: string; groups: string[] } {
  return { username: user.username, groups: [...user.groups] };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `webhookerrors.ToStatusErr`: the Status of a webhook's refusal — its own code (400 when below 400), reason and
 * details, the message prefixed `admission webhook "<name>" denied the request: ` (its reason when it sent no
 * message, `… denied the request without explanation` when neither).
 */
export function denialOf(name: string, result: Record<string, unknown> | undefined): StatusError {
  const r = result ?? {};
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const message = typeof r.message === "string" && r.message !== "" ? r.message : undefined;
  const reason = typeof r.reason === "string" && r.reason !== "" ? r.reason : undefined;
  const code = typeof r.code === "number" && r.code >= 400 ? r.code : 400;
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      message !== undefined
        ? `${deniedBy}: ${message}`
        : reason !== undefined
          ? `${deniedBy}: ${reason}`
          : `${deniedBy} without explanation`,
    ...(reason !== undefined && { reason: reason as Status["reason"] }),
    ...(isObject(r.details) && { details: r.details as Status["details"] }),
    code,
  };
  return new StatusError(status);
}

/** `ErrCallingWebhook` under `failurePolicy: Fail`: a 500 `failed calling webhook "<name>": <cause>`. */
function callFailure(name: string, cause: string): StatusError {
  return newInternalError(`failed calling webhook ${JSON.stringify(name)}: ${cause}`);
}

/** Whether a webhook with these side effects may be called on a dry-run request. */
function dryRunSafe(sideEffects: string): boolean {
  return sideEffects === "None" || sideEffects === "NoneOnDryRun";
}

/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (apiserver/pkg/admission/plugin/webhook:
 * `generic/webhook.go`'s `ShouldCallHook`, `mutating/dispatcher.go`, `validating/dispatcher.go`). Configurations
 * come from the engine's storage ({@link WebhookSource}). For a write, each webhook is matched on its `rules`
 * (operation, group, version, resource with subresource, scope), `matchPolicy` (`Equivalent`: another served
 * version of the same resource matches, the review then naming that version as `kind`/`resource` while the object
 * stays as written), `namespaceSelector`, `objectSelector` and `matchConditions` (CEL, on `object`, `oldObject`,
 * `request`); the configuration resources themselves are never sent to webhooks.
 *
 * A matched webhook on a dry-run request with `sideEffects` other than `None`/`NoneOnDryRun` fails the request
 * (400 `admission webhook "<name>" does not support dry run`). A call that fails (unreachable, TLS, not 2xx, bad
 * AdmissionReview, past `timeoutSeconds` on the engine's clock) fails the request with a 500 under `failurePolicy:
 * Fail` and is skipped under `Ignore`. A refusal is the webhook's Status ({@link denialOf}); response warnings go to
 * the request's warnings (`Warning` headers).
 */
export class AdmissionWebhooks {
  private readonly source: WebhookSource;
  /** Keep-alive connections to the webhook servers (Node keys them by host, CA and server name; idle ones unref'd). */
  private readonly agent = new Agent({ keepAlive: true });

  constructor(private readonly opts: AdmissionWebhooksOptions) {
    this.source = new WebhookSource(opts);
  }

  /** Stops following storage and closes the kept connections. */
  stop(): void {
    this.source.stop();
    this.agent.destroy();
  }

  /**
   * Whether any configured webhook has a rule naming `r`'s group and resource (with `subresource`), whatever the
   * version and operation: a cheap superset of the webhooks a write of `r` may call, so writes of other resources
   * skip the webhook passes.
   */
  configuredFor(r: SimResource, subresource = ""): boolean {
    if (r.group === "admissionregistration.k8s.io" && EXEMPT.has(r.resource)) return false;
    const { validating, mutating } = this.source.current();
    const names = (w: Webhook) =>
      w.rules.some(
        (rule) =>
          (rule.apiGroups ?? []).some((g) => g === "*" || g === r.group) &&
          (rule.resources ?? []).some((spec) => {
            const [res, sub] = spec.split("/", 2) as [string, string?];
            if (res !== "*" && res !== r.resource) return false;
            return sub === undefined ? subresource === "" : sub === "*" || sub === subresource;
          }),
      );
    return validating.some(names) || mutating.some(names);
  }

  /** Whether any mutating webhook is configured. */
  hasMutating(): boolean {
    return this.source.current().mutating.length > 0;
  }

  private matching(): MatchingContext {
    const ns = this.opts.resources().find((r) => r.group === "" && r.resource === "namespaces");
    return {
      namespaceLabels: (name) => (ns === undefined ? undefined : this.opts.storage.get(ns, "", name)?.metadata?.labels),
      equivalents: (r) => this.opts.resources().filter((o) => o.group === r.group && o.resource === r.resource),
    };
  }

  /** `ShouldCallHook` on rules and selectors: the resource version it matched as, or undefined; throws selector errors. */
  private matches(w: Webhook, req: PolicyRequest, ctx: MatchingContext): SimResource | undefined {
    if (w.rules.length === 0) return undefined;
    const m = matchesResources(
      {
        ...(w.namespaceSelector !== undefined && { namespaceSelector: w.namespaceSelector }),
        ...(w.objectSelector !== undefined && { objectSelector: w.objectSelector }),
        resourceRules: w.rules,
        matchPolicy: w.matchPolicy,
      },
      req,
      ctx,
    );
    return m.matches ? (m.resource ?? req.resource) : undefined;
  }

  /** `matchConditions`: all true → call; any false → skip; an error → `ErrCallingWebhook` (the failure policy). */
  private conditionsHold(
    w: Webhook,
    req: WebhookRequest,
    object: KubeObject | undefined,
    matched: SimResource,
  ): boolean {
    if (w.matchConditions.length === 0) return true;
    const schema = schemaOfResource(req.resource);
    const ctx = {
      object: object === undefined ? null : toCel(object, schema),
      oldObject: req.oldObject === undefined ? null : toCel(req.oldObject, schema),
      request: toCel(
        {
          kind: kindOf(matched),
          resource: { group: matched.group, version: matched.version, resource: matched.resource },
          subResource: req.subresource,
          requestKind: kindOf(req.resource),
          requestResource: {
            group: req.resource.group,
            version: req.resource.version,
            resource: req.resource.resource,
          },
          requestSubResource: req.subresource,
          name: req.name,
          namespace: req.namespace,
          operation: req.operation,
          // The user the AdmissionReview names, for conditions such as `request.userInfo.username != 'admin'`.
          userInfo: userInfoOf(req.user ?? IN_PROCESS_USER),
          dryRun: req.dryRun,
        },
        undefined,
      ),
    };
    let firstError: string | undefined;
    for (const c of w.matchConditions) {
      if (c.program instanceof Error) {
        firstError ??= `compilation failed: ${c.program.message}`;
        continue;
      }
      let v: unknown;
      try {
        v = c.program(ctx);
      } catch (err) {
        firstError ??= `expression '${c.expression}' resulted in error: ${err instanceof Error ? err.message : String(err)}`;
        continue;
      }
      if (isCelError(v) || v instanceof Error) {
        firstError ??= `expression '${c.expression}' resulted in error: ${String((v as Error).message ?? v)}`;
        continue;
      }
      // A false condition skips the webhook even when another one errs (upstream: false wins over errors).
      if (v !== true) return false;
    }
    if (firstError !== undefined) throw new WebhookCallError(`failed to evaluate match conditions: ${firstError}`);
    return true;
  }

  /** One call: the decoded response, or a {@link WebhookCallError}. */
  private async call(w: Webhook, req: WebhookRequest, object: KubeObject | undefined, matched: SimResource) {
    const uid = newUid(this.opts.rand);
    const target = resolveWebhookTarget(w.clientConfig, this.opts.storage, this.opts.resources());
    const url = `${target.url}${target.url.includes("?") ? "&" : "?"}timeout=${w.timeoutSeconds}s`;
    const body = admissionReview(uid, req, object, matched, req.user ?? IN_PROCESS_USER);
    const answer = await postReview({ ...target, url }, body, w.timeoutSeconds * 1000, this.opts.clock, this.agent);
    try {
      return decodeReviewResponse(answer, uid, w.type === "mutating");
    } catch (err) {
      throw new WebhookCallError(`received invalid webhook response: ${(err as Error).message}`);
    }
  }

  /**
   * Runs one matched webhook (conditions, dry run, the call under its failure policy): the response, `undefined`
   * when skipped; throws the request's StatusError.
   */
  private async invoke(w: Webhook, req: WebhookRequest, object: KubeObject | undefined, matched: SimResource) {
    try {
      if (!this.conditionsHold(w, req, object, matched)) return undefined;
      if (req.dryRun && !dryRunSafe(w.sideEffects))
        throw newBadRequest(`admission webhook ${JSON.stringify(w.name)} does not support dry run`);
      const res = await this.call(w, req, object, matched);
      req.warnings?.push(...res.warnings);
      if (!res.allowed) throw denialOf(w.name, res.result);
      return res;
    } catch (err) {
      if (err instanceof StatusError) throw err;
      if (w.failurePolicy === "Ignore") return undefined;
      throw callFailure(w.name, err instanceof Error ? err.message : String(err));
    }
  }

  /** The matched webhooks of one kind, with the version each matched as (selector errors: under the policy). */
  private matched(list: readonly Webhook[], req: PolicyRequest): { w: Webhook; r: SimResource | Error }[] {
    if (req.resource.group === "admissionregistration.k8s.io" && EXEMPT.has(req.resource.resource)) return [];
    const ctx = this.matching();
    const out: { w: Webhook; r: SimResource | Error }[] = [];
    for (const w of list) {
      try {
        const r = this.matches(w, req, ctx);
        if (r !== undefined) out.push({ w, r });
      } catch (err) {
        out.push({ w, r: err instanceof Error ? err : new Error(String(err)) });
      }
    }
    return out;
  }

  /**
   * The mutating webhooks, in order, on `object` (`req.object` before mutation): resolves to the mutated object
   * (`object` itself when nothing changed). `reinvocationPolicy: IfNeeded` webhooks are called once more when a later
   * webhook changed the object after them.
   */
  async mutate(req: WebhookRequest, object: KubeObject | undefined): Promise<KubeObject | undefined> {
    const hooks = this.matched(this.source.current().mutating, req);
    let current = object;
    let changes = 0;
    const seenAt = new Map<Webhook, number>();
    const run = async (w: Webhook, r: SimResource | Error) => {
      if (r instanceof Error) {
        if (w.failurePolicy === "Ignore") return;
        throw callFailure(w.name, r.message);
      }
      const res = await this.invoke(w, { ...req, object: current }, current, r);
      if (res?.patch !== undefined && current !== undefined) {
        let patched: unknown;
        try {
          patched = jsonPatch(structuredClone(current), res.patch);
        } catch (err) {
          throw newInternalError(`JSON Patch: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (JSON.stringify(patched) !== JSON.stringify(current)) {
          current = patched as KubeObject;
          changes++;
        }
      }
      seenAt.set(w, changes);
    };
    for (const { w, r } of hooks) await run(w, r);
    for (const { w, r } of hooks)
      if (w.reinvocationPolicy === "IfNeeded" && seenAt.has(w) && seenAt.get(w)! < changes) await run(w, r);
    return current;
  }

  /** The validating webhooks, all at once: throws the first refusal or failure in webhook order. */
  async validate(req: WebhookRequest): Promise<void> {
    const hooks = this.matched(this.source.current().validating, req);
    if (hooks.length === 0) return;
    const results = await Promise.allSettled(
      hooks.map(({ w, r }) => {
        if (r instanceof Error)
          return w.failurePolicy === "Ignore"
            ? Promise.resolve(undefined)
            : Promise.reject(callFailure(w.name, r.message));
        return this.invoke(w, req, req.object, r);
      }),
    );
    for (const res of results) if (res.status === "rejected") throw res.reason;
  }
}
