"""apimachinery/namespace.go, re-implemented with the Kubernetes Python client."""

from harness import expect_equal, main, new_namespace, upstream
from kubernetes import client


@upstream("should patch a Namespace")
def patch_namespace(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "nspatchtest")
    core.patch_namespace(ns, {"metadata": {"labels": {"testLabel": "testValue"}}})
    got = core.read_namespace(ns)
    expect_equal((got.metadata.labels or {}).get("testLabel"), "testValue", "the patched label")


@upstream("should apply an update to a Namespace")
def update_namespace(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "nsupdate")
    current = core.read_namespace(ns)
    current.metadata.labels = {**(current.metadata.labels or {}), "e2e-update": "updated"}
    core.replace_namespace(ns, current)
    expect_equal(core.read_namespace(ns).metadata.labels.get("e2e-update"), "updated", "the updated label")


if __name__ == "__main__":
    main()
