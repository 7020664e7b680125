import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import type { DeleteOptions, PatchContentType } from "../registry/index.js";
import type { EngineRequest, ResourceRef } from "../request-context.js";
import type { SimWatch } from "../sim-watch.js";

/** What every resource request addresses: the resource, the namespace (`""`: cluster scope or all namespaces). */
export interface ResourceRequestTarget {
  readonly resource: ResourceRef;
  readonly namespace: string;
  /** Who asks, cancellation, the write parameters and the connection (the face's context, read only). */
  readonly context: EngineRequest;
}

/** LIST or WATCH of a collection; `options` are the decoded query (the engine defaults and validates them). */
export interface CollectionReadRequest extends ResourceRequestTarget {
  readonly verb: "list" | "watch";
  readonly options: ListOptions;
}

/** GET of one object (or its `status`/`scale`, `context.subresource`). */
export interface GetRequest extends ResourceRequestTarget {
  readonly verb: "get";
  readonly name: string;
  readonly options: { readonly resourceVersion?: string };
}

/** CREATE of `body` (a pod's `binding` too: its body is the Binding). */
export interface CreateRequest extends ResourceRequestTarget {
  readonly verb: "create";
  readonly body: KubeObject;
}

/** UPDATE (PUT) of an object, its status or its Scale. */
export interface UpdateRequest extends ResourceRequestTarget {
  readonly verb: "update";
  readonly name: string;
  readonly body: KubeObject;
}

/** PATCH: `body` in the content type `patchType` (JSON patch, merge, strategic merge, apply). */
export interface PatchRequest extends ResourceRequestTarget {
  readonly verb: "patch";
  readonly name: string;
  readonly patchType: PatchContentType | string;
  readonly body: string;
}

/** DELETE of one object with `DeleteOptions`. */
export interface DeleteRequest extends ResourceRequestTarget {
  readonly verb: "delete";
  readonly name: string;
  readonly deleteOptions: DeleteOptions | undefined;
}

/** DELETE of what the list `options` select, each with `deleteOptions`. */
export interface DeleteCollectionRequest extends ResourceRequestTarget {
  readonly verb: "deletecollection";
  readonly options: ListOptions;
  readonly deleteOptions: DeleteOptions | undefined;
}

/**
 * One resource request as both faces hand it to the engine (kube-apiserver's request with its `RequestInfo`:
 * verb, resource, namespace, name, options, body, and in {@link ResourceRequestTarget.context} the user, user agent, trace and
 * write parameters). The HTTP face builds it from the parsed URL and body, the in-process face from a method call;
 * {@link EngineRequests.serve} serves every verb from it, so each verb is written once.
 */
export type ResourceRequest =
  | CollectionReadRequest
  | GetRequest
  | CreateRequest
  | UpdateRequest
  | PatchRequest
  | DeleteRequest
  | DeleteCollectionRequest;

/** What each verb answers with. */
export interface VerbResults {
  readonly list: KubeList;
  readonly watch: SimWatch;
  readonly get: KubeObject;
  readonly create: KubeObject;
  readonly update: KubeObject;
  readonly patch: KubeObject;
  readonly delete: KubeObject;
  readonly deletecollection: KubeList;
}

/** The answer of a request of verb `V`. */
export type ResultOf<R extends ResourceRequest> = VerbResults[R["verb"]];

/** The object's name a request addresses (`""` for a collection or a create). */
export function nameOf(req: ResourceRequest): string {
  return "name" in req ? req.name : "";
}

/** The options a client would have put on the URL: list options, or a GET's resourceVersion; none for writes. */
export function queryOptionsOf(req: ResourceRequest): ListOptions | { readonly resourceVersion?: string } | undefined {
  switch (req.verb) {
    case "list":
    case "watch":
    case "get":
    case "deletecollection":
      return req.options;
    default:
      return undefined;
  }
}
