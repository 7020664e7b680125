import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, customResource } from "@informer-ts/client";
import {
  type Controller,
  type ControllerBuilder,
  EventTypeNormal,
  generationChangedPredicate,
  type Manager,
  newControllerManagedBy,
  type ObjectClient,
  setControllerReference,
} from "@informer-ts/controller";

const { configmaps } = builtinResources;

/** `widgets.example.com/v1`: `spec.size`; `status.observedGeneration` and `status.size` through `/status`. */
export const widgets = customResource({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
  subresources: ["status"],
});

/** What the controller reports in a Widget's `/status`. */
export interface WidgetStatus {
  /** The `metadata.generation` the children were last brought in line with. */
  readonly observedGeneration?: number;
  /** The size the children carry. */
  readonly size?: number;
}

/** The finalizer this controller puts on every Widget. */
export const WIDGET_FINALIZER = "example.com/widget-cleanup";

/**
 * Widgets are also recorded in a registry namespace (one ConfigMap per Widget). A cross-namespace object cannot be
 * owned, so the garbage collector cannot remove it: the finalizer does.
 */
export const REGISTRY_NAMESPACE = "widget-registry";
export const registryName = (namespace: string, name: string): string => `${namespace}.${name}`;

/**
 * Registers the Widget controller on `mgr`. For each Widget it keeps
 * - a ConfigMap `<name>-widget` in the Widget's namespace with `size`, controlled by the Widget (the GC deletes it);
 * - a registry ConfigMap in `widget-registry`, removed by the finalizer when the Widget is deleted.
 *
 * - `status.observedGeneration` (and `status.size`) written through the `/status` subresource once the children
 *   match the spec of that generation.
 *
 * Widgets are reconciled when their generation changes: on spec changes, and when their deletion starts (the delete
 * that sets `deletionTimestamp` also increments `metadata.generation`, as kube-apiserver does). Neither the finalizer
 * patch (metadata) nor the status write (the CRD declares the status subresource, so `/status` writes keep the
 * generation) wakes the controller again. `builder` makes the controller's builder (default
 * `newControllerManagedBy(mgr)`; a property test passes the kit's observed `c.builder`).
 */
export function setupWidgetController(
  mgr: Manager,
  client: ObjectClient,
  builder: () => ControllerBuilder = () => newControllerManagedBy(mgr),
): Controller {
  const recorder = mgr.getEventRecorderFor("widget-controller");
  const cache = mgr.informerFor(widgets);
  const children = mgr.informerFor(configmaps);
  return builder()
    .named("widget")
    .for(widgets, { predicates: [generationChangedPredicate] })
    .owns(configmaps)
    .finalize(WIDGET_FINALIZER, async (widget, ctx) => {
      const ns = widget.metadata?.namespace ?? "";
      const name = widget.metadata?.name ?? "";
      await client
        .delete(configmaps, registryName(ns, name), { namespace: REGISTRY_NAMESPACE }, ctx.signal)
        .catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
      recorder.event(widget, EventTypeNormal, "Finalized", `removed ${name} from the registry`);
    })
    .complete(async (req, ctx) => {
      const widget = cache.getIndexer().getByKey(`${req.namespace}/${req.name}`);
      if (widget === undefined) return;
      const sizeNumber = (widget.spec as { size?: number } | undefined)?.size ?? 1;
      const size = String(sizeNumber);
      const childName = `${req.name}-widget`;
      const child = children.getIndexer().getByKey(`${req.namespace}/${childName}`);
      if (child === undefined) {
        // Absent from the cache is not absent: confirm the Widget live before creating its child, or a stale Widget
        // cache re-creates what the garbage collector just deleted (see docs/controller.md).
        const live = await mgr
          .getAPIReader()
          .get(widgets, req.name, { namespace: req.namespace }, ctx.signal)
          .catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          });
        if (live === undefined || live.metadata?.uid !== widget.metadata?.uid) return;
        const cm: KubeObject = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: childName, namespace: req.namespace },
          data: { size },
        };
        setControllerReference(widget, cm, { ownerType: widgets }); // cached objects carry no apiVersion/kind
        await client.create(configmaps, cm, {}, ctx.signal);
      } else if ((child.data as Record<string, string> | undefined)?.size !== size) {
        await client.update(configmaps, { ...child, data: { size } }, {}, ctx.signal);
      }
      const entry = registryName(req.namespace, req.name);
      await client
        .create(
          configmaps,
          {
            metadata: { name: entry, namespace: REGISTRY_NAMESPACE },
            data: { widget: `${req.namespace}/${req.name}` },
          },
          {},
          ctx.signal,
        )
        .catch((err: unknown) => {
          if ((err as { code?: number }).code !== 409) throw err;
        });
      const generation = widget.metadata?.generation;
      const status = widget.status as WidgetStatus | undefined;
      if (generation !== undefined && (status?.observedGeneration !== generation || status.size !== sizeNumber)) {
        const next: WidgetStatus = { observedGeneration: generation, size: sizeNumber };
        await client.patch(
          widgets,
          req.name,
          { status: next },
          { namespace: req.namespace, subresource: "status", patchType: "merge" },
          ctx.signal,
        );
      }
      recorder.event(widget, EventTypeNormal, "Reconciled", `size ${size} at generation ${generation}`);
    });
}
