import type { KubeObject } from "@informer-ts/apimachinery";
import type { AdmissionWebhooks, WebhookRequest } from "../admission/webhook/admission-webhooks.js";
import { reviewUserOf } from "../registry/index.js";
import type { WebhookPass } from "../registry/store.js";
import type { EngineRequest, Served } from "../request-context.js";
import type { SimResource } from "../resources.js";

/** One run of a write: `req` as the registry gets it, with the webhook pass (absent: a write without webhooks). */
export type WriteRun = (req: EngineRequest, pass: WebhookPass | undefined) => Served<KubeObject>;

/** The subresources webhooks see writes of (the object and its status; scale and the others go without). */
function webhookSubresource(req: EngineRequest): boolean {
  const sub = req.subresource ?? "";
  return sub === "" || sub === "status";
}

/**
 * A create, update or patch with the admission webhooks, whose calls are asynchronous while the registry's write is
 * not: the write runs as a dry run (warnings discarded) to find the object at the mutating webhooks' point; the
 * mutating webhooks are awaited on it; when they changed it, a second dry run carries their result through the
 * strategy and validation; the validating webhooks are awaited on that validated object; then the write runs for
 * real with the mutated object (and the name the dry runs drew), so what is stored is what the webhooks saw —
 * or, on an update whose object changed meanwhile, a 409. A denial anywhere stores nothing.
 */
export async function writeWithWebhooks(
  webhooks: AdmissionWebhooks | undefined,
  r: SimResource,
  namespace: string,
  req: EngineRequest,
  run: WriteRun,
): Promise<Served<KubeObject>> {
  if (webhooks === undefined || !webhookSubresource(req) || !webhooks.configuredFor(r, req.subresource ?? ""))
    return run(req, undefined);
  const scratch: EngineRequest = { ...req, dryRun: true, warnings: [] };
  let atMutating: KubeObject | undefined;
  let old: KubeObject | undefined;
  let atValidating: KubeObject | undefined;
  run(scratch, {
    onMutating: (o, prev) => {
      atMutating = o;
      old = prev;
    },
    onValidating: (o) => {
      atValidating = o;
    },
  });
  if (atMutating === undefined || atValidating === undefined) return run(req, undefined);
  const base: Omit<WebhookRequest, "object" | "name"> = {
    resource: r,
    operation: old === undefined ? "CREATE" : "UPDATE",
    subresource: req.subresource ?? "",
    namespace,
    oldObject: old,
    dryRun: req.dryRun === true,
    ...(req.warnings !== undefined && { warnings: req.warnings }),
    user: reviewUserOf(req.user, req.groups),
  };
  let final = atMutating;
  if (webhooks.hasMutating()) {
    const mutated = await webhooks.mutate(
      { ...base, name: atMutating.metadata?.name ?? "", object: atMutating },
      atMutating,
    );
    if (mutated !== undefined && mutated !== atMutating) {
      final = mutated;
      atValidating = undefined;
      run(scratch, { mutated, onValidating: (o) => (atValidating = o) });
      if (atValidating === undefined) return run(req, undefined);
    }
  }
  const validated = atValidating as KubeObject;
  const name = validated.metadata?.name ?? "";
  await webhooks.validate({ ...base, name, object: validated });
  const pinned: KubeObject = { ...final, metadata: { ...final.metadata, name } };
  return run(req, { mutated: pinned });
}

/** A delete with the admission webhooks: both kinds are called on the stored object (`DELETE`), then it runs. */
export async function deleteWithWebhooks(
  webhooks: AdmissionWebhooks | undefined,
  r: SimResource,
  namespace: string,
  name: string,
  current: KubeObject | undefined,
  req: EngineRequest,
  dryRun: boolean,
  run: () => Served<KubeObject>,
): Promise<Served<KubeObject>> {
  if (
    webhooks === undefined ||
    current === undefined ||
    !webhookSubresource(req) ||
    !webhooks.configuredFor(r, req.subresource ?? "")
  )
    return run();
  const request: WebhookRequest = {
    resource: r,
    operation: "DELETE",
    subresource: req.subresource ?? "",
    namespace,
    name,
    object: undefined,
    oldObject: current,
    dryRun,
    ...(req.warnings !== undefined && { warnings: req.warnings }),
    user: reviewUserOf(req.user, req.groups),
  };
  if (webhooks.hasMutating()) await webhooks.mutate(request, undefined);
  await webhooks.validate(request);
  return run();
}
