import { StatusError } from "@informer-ts/apimachinery";

/**
 * A request or an admin call named a resource the engine does not serve (never registered, or a
 * CustomResourceDefinition's resource after the definition was deleted): kube-apiserver's 404 for a path no handler
 * serves, `the server could not find the requested resource (<resource>)`, with the name as it was given in
 * {@link resource}.
 *
 * It is a `StatusError` (code 404, reason `NotFound`), so a face writes it as the Status kube-apiserver would. How it
 * reaches a caller follows the method's shape: every verb returns a promise and rejects with it (a request is data,
 * and a 404 is one of its answers); the synchronous admin and test API of `SimApiServer` (`cacher`, `watchers`,
 * `reinitializeCache`, `dropWatches`, `watcherInfo`, `stallWatchers`, `resumeWatchers`, `resource`) throws it,
 * because naming a resource that is not served there is a mistake in the calling code or configuration, to be
 * reported where it was made rather than turned into a value every caller must unwrap. The admin API answers it
 * with a 404 naming the resource, and `--fault` exits 2 naming it: no face lets it escape.
 */
export class UnknownResourceError extends StatusError {
  constructor(
    /** The resource as the caller named it (`configmaps`, `deployments.apps`). */
    readonly resource: string,
  ) {
    super({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `the server could not find the requested resource (${resource})`,
      reason: "NotFound",
      details: {},
      code: 404,
    });
  }
}
