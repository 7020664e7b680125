import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, customResource } from "@informer-ts/client";
import {
  type Controller,
  EventTypeNormal,
  generationChangedPredicate,
  type Manager,
  newControllerManagedBy,
  type ObjectClient,
  or,
  type Predicate,
  setControllerReference,
} from "@informer-ts/controller";

const { configmaps } = builtinResources;

/** `widgets.example.com/v1`: `spec.size`. */
export const widgets = customResource({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
});

/** The finalizer this controller puts on every Widget. */
export const WIDGET_FINALIZER = "example.com/widget-cleanup";

/**
 * Widgets are also recorded in a registry namespace (one ConfigMap per Widget). A cross-namespace object cannot be
 * owned, so the garbage collector cannot remove it: the finalizer does.
 */
export const REGISTRY_NAMESPACE = "widget-registry";
export const registryName = (namespace: string, name: string): string => `${namespace}.${name}`;

/**
 * Passes the update that sets `deletionTimestamp`. kube-apiserver also bumps the generation then (so
 * `generationChangedPredicate` alone lets it through); being explicit keeps the finalizer working on servers that do not.
 */
const deletionStarted: Predicate<KubeObject> = {
  create: () => false,
  delete: () => false,
  update: (oldObj, newObj) =>
    oldObj.metadata?.deletionTimestamp === undefined && newObj.metadata?.deletionTimestamp !== undefined,
};

/**
 * Registers the Widget controller on `mgr`. For each Widget it keeps
 * - a ConfigMap `<name>-widget` in the Widget's namespace with `size`, controlled by the Widget (the GC deletes it);
 * - a registry ConfigMap in `widget-registry`, removed by the finalizer when the Widget is deleted.
 *
 * Widgets are reconciled on spec changes and when their deletion starts: the finalizer patch (metadata) does not wake
 * the controller again. Writing `status.observedGeneration` needs the `/status` subresource verbs of the client,
 * which this example will use once they are on main (a CRD without a status subresource bumps the generation on
 * every status write, so status written with the object would loop).
 */
export function setupWidgetController(mgr: Manager, client: ObjectClient): Controller {
  const recorder = mgr.getEventRecorderFor("widget-controller");
  const cache = mgr.informerFor(widgets);
  const children = mgr.informerFor(configmaps);
  return newControllerManagedBy(mgr)
    .named("widget")
    .for(widgets, { predicates: [or(generationChangedPredicate, deletionStarted)] })
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
      const size = String((widget.spec as { size?: number } | undefined)?.size ?? 1);
      const childName = `${req.name}-widget`;
      const child = children.getIndexer().getByKey(`${req.namespace}/${childName}`);
      if (child === undefined) {
        const cm: KubeObject = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: childName, namespace: req.namespace },
          data: { size },
        };
        setControllerReference(widget, cm);
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
      recorder.event(
        widget,
        EventTypeNormal,
        "Reconciled",
        `size ${size} at generation ${widget.metadata?.generation}`,
      );
    });
}
