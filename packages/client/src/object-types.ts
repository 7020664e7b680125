import type { KubeObject, ListMeta, ObjectMeta } from "@informer-ts/apimachinery";
import type { V1Scale } from "@kubernetes/client-node/dist/gen/models/V1Scale.js";

/**
 * The JSON form of a `@kubernetes/client-node` model: the same fields, with `Date`s as the RFC 3339 strings the API
 * server sends (client-node's `ObjectSerializer` would turn them into `Date`s; this client does no conversion).
 * Compile-time only.
 */
export type JsonOf<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? JsonOf<U>[]
    : T extends object
      ? { [K in keyof T]: JsonOf<T[K]> }
      : T;

/** `autoscaling/v1` `Scale`: what the `/scale` subresource reads and writes. */
export type Scale = JsonOf<V1Scale>;

/**
 * `meta.k8s.io/v1` `PartialObjectMetadata`: an object reduced to its type and metadata, as metadata-only lists and
 * watches return it (client-go `metav1.PartialObjectMetadata`).
 */
export interface PartialObjectMetadata extends KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** `meta.k8s.io/v1` `PartialObjectMetadataList`. */
export interface PartialObjectMetadataList {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

/**
 * Every field optional, at every depth (arrays of deep partials): what the client's writes (`create`, `update`,
 * `updateStatus`, `apply`) accept for a `T`. The read types keep the OpenAPI schema's required markers (the server
 * always sends `spec.selector` of a Deployment), but a write takes any JSON object of the type's shape, as client-go's
 * Go structs do — every field of them can be left at its zero value, which `omitempty` drops from the JSON. So the
 * spread edit of an object read through the client, `{ ...d, spec: { ...d.spec, replicas } }`, compiles although
 * `d.spec` may be absent; a field the server requires and the body omits is the server's 422 Invalid, as with
 * client-go. A field of the wrong type still does not compile.
 */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? Flat<
        { [K in keyof T as IndexKey<K> extends true ? never : K]?: DeepPartial<T[K]> } & {
          [K in keyof T as IndexKey<K> extends true ? K : never]: DeepPartial<T[K]>;
        }
      >
    : T;

/**
 * Whether `K` is an index signature's key (`string`, `number`): a map such as `labels` keeps its values as they are
 * (an optional index signature would make every value `string | undefined`, which a `Record<string, string>` does
 * not take); its declared fields become optional.
 */
type IndexKey<K> = string extends K ? true : number extends K ? true : false;

/** One object type instead of an intersection (readable in errors and hovers); keeps each field's `?`. */
type Flat<T> = { [K in keyof T]: T[K] };
