// The target and body of a single-object request, checked before anything is sent: a bad name, namespace, kind or
// apiVersion is a RequestConstructionError naming it (client-go's typed clients would fail the same calls).
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ApplyOptions } from "./call-options.js";
import type { Verb } from "./request-executor.js";
import { apiVersionOf, RequestConstructionError, type ResourceDescriptor, type ResourceLocation } from "./resources.js";

/** Where a request about the object `name` goes; the namespace is required for namespaced resources. */
export function objectLocation(
  r: ResourceDescriptor<unknown>,
  verb: Verb,
  name: string,
  namespace?: string,
  subresource?: string,
): ResourceLocation {
  if (typeof name !== "string")
    throw new RequestConstructionError(`resource name must be a string, got ${typeof name}`);
  if (name === "") throw new RequestConstructionError("resource name may not be empty");
  const sub = subresource !== undefined && subresource !== "" ? { subresource } : {};
  if (!r.namespaced) return { name, ...sub };
  if (namespace === undefined || namespace === "") {
    throw new RequestConstructionError(
      `an empty namespace may not be set when a resource name is provided (${verb.toLowerCase()} ${r.resource} ${JSON.stringify(name)})`,
    );
  }
  return { namespace, name, ...sub };
}

/** The metadata of an object about to be written; the object must be a JSON object and its metadata an object. */
export function metadataOf(object: unknown, verb: string): KubeObject["metadata"] {
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new RequestConstructionError(`${verb}: the object must be a JSON object`);
  }
  const meta = (object as KubeObject).metadata;
  if (meta !== undefined && (typeof meta !== "object" || meta === null)) {
    throw new RequestConstructionError(`${verb}: metadata must be an object`);
  }
  return meta;
}

/** The namespace given in options and the one in the object must agree (client-go's typed clients would fail). */
export function checkNamespaceMatch(
  r: ResourceDescriptor<unknown>,
  given: string | undefined,
  inObject: string | undefined,
  verb: string,
): void {
  if (!r.namespaced) return;
  if (given !== undefined && given !== "" && inObject !== undefined && inObject !== "" && given !== inObject) {
    throw new RequestConstructionError(
      `${verb}: the namespace of the request (${JSON.stringify(given)}) does not match metadata.namespace (${JSON.stringify(inObject)})`,
    );
  }
}

/** The target and body of a server-side apply: name, fieldManager, matching namespace/apiVersion/kind are required. */
export function applyBody(
  resource: ResourceDescriptor<unknown>,
  object: unknown,
  options: ApplyOptions,
  verb: string,
): { name: string; namespace: string | undefined; text: string } {
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new RequestConstructionError(`${verb}: the object must be a JSON object`);
  }
  const obj = object as KubeObject;
  const name = obj.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new RequestConstructionError(`${verb}: metadata.name is required (server-side apply addresses one object)`);
  }
  if (options.fieldManager === undefined || options.fieldManager === "") {
    throw new RequestConstructionError(`${verb}: fieldManager is required for server-side apply`);
  }
  checkNamespaceMatch(resource, options.namespace, obj.metadata?.namespace, verb);
  const apiVersion = apiVersionOf(resource);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw new RequestConstructionError(
      `${verb}: apiVersion ${JSON.stringify(obj.apiVersion)} does not match the resource's ${JSON.stringify(apiVersion)}`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== resource.kind) {
    throw new RequestConstructionError(
      `${verb}: kind ${JSON.stringify(obj.kind)} does not match the resource's ${JSON.stringify(resource.kind)}`,
    );
  }
  const namespace = options.namespace ?? obj.metadata?.namespace;
  const text = JSON.stringify({ ...obj, apiVersion, kind: resource.kind });
  return { name, namespace, text };
}
