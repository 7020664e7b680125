// The engine's controllers (kube-controller-manager and apiextensions-apiserver pieces the simulator runs itself):
// the controller loop, the garbage collector, the namespace controller and the CRD finalizer. These are the names
// the other engine folders may use.
export { CrdFinalizer } from "./crd-finalizer.js";
export { GarbageCollector } from "./garbage-collector.js";
export { NamespaceController } from "./namespace-controller.js";
