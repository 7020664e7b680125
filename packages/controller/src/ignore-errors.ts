// controller-runtime's client.IgnoreNotFound / IgnoreAlreadyExists, as promise rejection handlers.
import { isAlreadyExists, isNotFound } from "@informer-ts/apimachinery";

/**
 * `client.IgnoreNotFound` as a rejection handler: `await client.delete(…).catch(ignoreNotFound)` resolves with
 * `undefined` when the object was already gone (404 NotFound) and rejects with any other error.
 */
export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

/**
 * `client.IgnoreAlreadyExists` as a rejection handler: `await client.create(…).catch(ignoreAlreadyExists)` resolves
 * with `undefined` when the object exists already (409 AlreadyExists) and rejects with any other error.
 */
export function ignoreAlreadyExists(err: unknown): undefined {
  if (isAlreadyExists(err)) return undefined;
  throw err;
}
