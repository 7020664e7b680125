// Public surface of @informer-ts/sim-apiserver.
export * from "./http/index.js";
