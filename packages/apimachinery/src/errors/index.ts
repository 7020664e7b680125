// Kubernetes API errors (apimachinery `pkg/api/errors`): the error type carrying a Status, the constructors of each
// reason as kube-apiserver words them, and the predicates that classify any error.
export * from "./constructors.js";
export * from "./predicates.js";
export * from "./status-error.js";
