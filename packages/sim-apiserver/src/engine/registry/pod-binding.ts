import { type KubeObject, newConflict, newInvalid, newNotFound, type Status } from "@informer-ts/apimachinery";
import type { SimResource } from "../resources.js";
import type { MvccStorage } from "../storage/index.js";

/** `v1` `Binding`: what a scheduler POSTs to `pods/<name>/binding`. */
export interface PodBinding extends KubeObject {
  readonly target?: { readonly kind?: string; readonly name?: string; readonly apiVersion?: string };
}

const PODS = { group: "", resource: "pods" } as const;

/**
 * Binds a pod to a node (kube-apiserver's `BindingREST.Create` and `assignPod`/`setPodHostAndAnnotations` of
 * `pkg/registry/core/pod/storage/storage.go`): validates the Binding (a target name; a target kind that is empty or
 * `Node`), then in one turn sets the stored pod's `spec.nodeName`, merges the Binding's annotations into the pod's and
 * sets its `PodScheduled` condition to `True`. A pod that is being deleted or already has a node is a 409 Conflict
 * (`pod x is already assigned to node "n"`); a missing pod is 404; a Binding whose `metadata.uid` or
 * `metadata.resourceVersion` is set must match the pod's (409). Answers the `Success` Status upstream answers (201).
 * `dryRun` validates and stores nothing.
 */
export function bindPod(
  storage: MvccStorage,
  r: SimResource,
  namespace: string,
  name: string,
  binding: PodBinding,
  dryRun: boolean,
): Status {
  const target = binding.target;
  const errs: {
    type: "FieldValueRequired" | "FieldValueNotSupported";
    field: string;
    badValue?: string;
    detail?: string;
  }[] = [];
  if (typeof target?.name !== "string" || target.name === "")
    errs.push({ type: "FieldValueRequired", field: "target.name" });
  if (target?.kind !== undefined && target.kind !== "" && target.kind !== "Node") {
    errs.push({
      type: "FieldValueNotSupported",
      field: "target.kind",
      badValue: target.kind,
      detail: "must be empty or 'Node'",
    });
  }
  const bindingName = binding.metadata?.name;
  if (bindingName !== undefined && bindingName !== "" && bindingName !== name) {
    errs.push({
      type: "FieldValueNotSupported",
      field: "metadata.name",
      badValue: bindingName,
      detail: `must be ${name}`,
    });
  }
  if (errs.length > 0) throw newInvalid({ group: "", kind: "Binding" }, name, errs);
  const current = storage.get(r, namespace, name);
  if (current === undefined) throw newNotFound(PODS, name);
  const meta = current.metadata ?? {};
  const uid = binding.metadata?.uid;
  if (uid !== undefined && uid !== "" && uid !== meta.uid) {
    throw newConflict(
      PODS,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid ?? ""}`,
    );
  }
  const rv = binding.metadata?.resourceVersion;
  if (rv !== undefined && rv !== "" && rv !== meta.resourceVersion) throw newConflict(PODS, name);
  if (meta.deletionTimestamp !== undefined) {
    throw newConflict(PODS, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  }
  const spec = (current.spec ?? {}) as { nodeName?: string };
  if (typeof spec.nodeName === "string" && spec.nodeName !== "") {
    throw newConflict(PODS, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
  }
  // A new top level, spec, status and conditions list over the stored (frozen) pod; everything the binding does not
  // touch — containers, the managedFields list — is the stored version's own, shared by identity with the new one.
  const cur = current as KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
  const next: KubeObject = { ...cur, spec: { ...(cur.spec ?? {}), nodeName: target!.name } };
  const annotations = binding.metadata?.annotations;
  if (annotations !== undefined && Object.keys(annotations).length > 0) {
    next.metadata = { ...cur.metadata, annotations: { ...cur.metadata?.annotations, ...annotations } };
  }
  const status = { ...(cur.status ?? {}) } as { conditions?: { type: string; status: string }[] };
  const conditions = [...(status.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === "PodScheduled");
  if (i < 0) conditions.push({ type: "PodScheduled", status: "True" });
  else conditions[i] = { ...conditions[i]!, status: "True" };
  status.conditions = conditions;
  next.status = status;
  if (!dryRun) storage.replace(r, namespace, name, next, meta.resourceVersion ?? "");
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
}
