import type { ResourceDescriptor } from "@informer-ts/client";

/**
 * Throws a `TypeError` naming `where` unless `resource` has the shape of a {@link ResourceDescriptor}: string group and
 * version, non-empty resource and kind, boolean `namespaced`. Guards the public entry points that take a descriptor
 * from JavaScript callers (or casts) before it reaches an informer or a request path.
 */
export function checkResource(resource: ResourceDescriptor<unknown>, where: string): void {
  if (
    typeof resource !== "object" ||
    resource === null ||
    typeof resource.group !== "string" ||
    typeof resource.version !== "string" ||
    typeof resource.resource !== "string" ||
    resource.resource === "" ||
    typeof resource.kind !== "string" ||
    resource.kind === "" ||
    typeof resource.namespaced !== "boolean"
  ) {
    throw new TypeError(`${where}: not a resource descriptor (group, version, resource, kind, namespaced)`);
  }
}
