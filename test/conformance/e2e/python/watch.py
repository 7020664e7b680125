"""apimachinery/watch.go, re-implemented with the Kubernetes Python client."""

from harness import expect_equal, main, new_namespace, upstream
from kubernetes import client, watch


def _events(api, ns, selector, rv, count):
    """The first `count` events of a watch from `rv` (an exact count: the test knows what it caused)."""
    w = watch.Watch()
    out = []
    for ev in w.stream(
        client.CoreV1Api(api).list_namespaced_config_map,
        ns,
        label_selector=selector,
        resource_version=rv,
        timeout_seconds=30,
    ):
        out.append((ev["type"], ev["object"].metadata.name, (ev["object"].data or {}).get("mutation")))
        if len(out) == count:
            w.stop()
    return out


@upstream("should observe add, update, and delete watch notifications on configmaps")
def add_update_delete(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "watch")
    rv = core.list_namespaced_config_map(ns).metadata.resource_version
    label = "watch-this-configmap"

    def cm(name, value):
        return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={label: value}))

    core.create_namespaced_config_map(ns, cm("e2e-watch-test-configmap-a", "multiple-watchers-A"))
    for n in ("1", "2"):
        core.patch_namespaced_config_map("e2e-watch-test-configmap-a", ns, {"data": {"mutation": n}})
    core.delete_namespaced_config_map("e2e-watch-test-configmap-a", ns)
    core.create_namespaced_config_map(ns, cm("e2e-watch-test-configmap-b", "multiple-watchers-B"))
    core.delete_namespaced_config_map("e2e-watch-test-configmap-b", ns)

    a = [
        ("ADDED", "e2e-watch-test-configmap-a", None),
        ("MODIFIED", "e2e-watch-test-configmap-a", "1"),
        ("MODIFIED", "e2e-watch-test-configmap-a", "2"),
        ("DELETED", "e2e-watch-test-configmap-a", "2"),
    ]
    b = [("ADDED", "e2e-watch-test-configmap-b", None), ("DELETED", "e2e-watch-test-configmap-b", None)]
    expect_equal(_events(api, ns, f"{label}=multiple-watchers-A", rv, 4), a, "watch A")
    expect_equal(_events(api, ns, f"{label}=multiple-watchers-B", rv, 2), b, "watch B")
    both = f"{label} in (multiple-watchers-A,multiple-watchers-B)"
    expect_equal(_events(api, ns, both, rv, 6), a + b, "watch A or B")


@upstream("should be able to start watching from a specific resource version")
def from_resource_version(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "watch")
    name = "e2e-watch-test-resource-version"
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name)))
    first = core.patch_namespaced_config_map(name, ns, {"data": {"mutation": "1"}})
    core.patch_namespaced_config_map(name, ns, {"data": {"mutation": "2"}})
    core.delete_namespaced_config_map(name, ns)
    got = _events(api, ns, None, first.metadata.resource_version, 2)
    expect_equal(got, [("MODIFIED", name, "2"), ("DELETED", name, "2")], "watch from the first update")


if __name__ == "__main__":
    main()
