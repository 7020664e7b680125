"""common/node/configmap.go, re-implemented with the Kubernetes Python client."""

from harness import expect_equal, main, new_namespace, upstream
from kubernetes import client
from kubernetes.client.rest import ApiException


@upstream("should run through a ConfigMap lifecycle")
def lifecycle(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "configmap")
    name = "e2e-configmap-lifecycle"
    core.create_namespaced_config_map(
        ns,
        client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name=name, labels={"test-configmap-static": "true"}),
            data={"valueName": "value"},
        ),
    )
    core.patch_namespaced_config_map(
        name, ns, {"metadata": {"labels": {"test-configmap": "patched"}}, "data": {"valueName": "value1"}}
    )
    got = core.read_namespaced_config_map(name, ns)
    expect_equal(got.data, {"valueName": "value1"}, "the patched data")
    expect_equal(got.metadata.labels, {"test-configmap-static": "true", "test-configmap": "patched"}, "labels")
    listed = core.list_config_map_for_all_namespaces(label_selector="test-configmap-static=true")
    found = [(i.metadata.namespace, i.metadata.name) for i in listed.items]
    if (ns, name) not in found:
        raise AssertionError(f"{ns}/{name} not in the all-namespaces list {found}")
    core.delete_collection_namespaced_config_map(ns, label_selector="test-configmap-static=true")
    left = core.list_namespaced_config_map(ns, label_selector="test-configmap-static=true").items
    expect_equal(left, [], "configmaps after deletecollection")


@upstream("should fail to create ConfigMap with empty key")
def empty_key(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "configmap")
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="configmap-test-emptykey"), data={"": "value-1"})
    try:
        core.create_namespaced_config_map(ns, body)
    except ApiException as err:
        expect_equal(err.status, 422, "the status of a ConfigMap with an empty key")
        return
    raise AssertionError("a ConfigMap with an empty key was created")


if __name__ == "__main__":
    main()
