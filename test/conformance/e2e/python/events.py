"""instrumentation/core_events.go and events.go, re-implemented with the Kubernetes Python client."""

import datetime
import json

from harness import expect_equal, main, new_namespace, upstream
from kubernetes import client


@upstream("should manage the lifecycle of an event")
def core_event_lifecycle(api):
    core = client.CoreV1Api(api)
    ns = new_namespace(api, "events")
    name = "event-test"
    core.create_namespaced_event(
        ns,
        client.CoreV1Event(
            metadata=client.V1ObjectMeta(name=name, labels={"testevent-constant": "true"}),
            involved_object=client.V1ObjectReference(kind="Pod", name="test-pod", namespace=ns),
            reason="Test",
            message="This is a test event",
            type="Normal",
            count=1,
            source=client.V1EventSource(component="test-component"),
        ),
    )
    listed = core.list_event_for_all_namespaces(label_selector="testevent-constant=true")
    if name not in [e.metadata.name for e in listed.items]:
        raise AssertionError("the event is not in the all-namespaces list")
    core.patch_namespaced_event(name, ns, {"message": "This is a test event - patched"})
    expect_equal(core.read_namespaced_event(name, ns).message, "This is a test event - patched", "patched message")
    # One Event storage: the same object through events.k8s.io/v1 (beyond upstream's test).
    # The Python client's EventsV1Event refuses an Event without eventTime (a legacy one), so it is read as JSON.
    raw = client.EventsV1Api(api).read_namespaced_event(name, ns, _preload_content=False)
    other = json.loads(raw.data)
    expect_equal(other.get("note"), "This is a test event - patched", "the note through events.k8s.io")
    expect_equal(other.get("deprecatedSource"), {"component": "test-component"}, "deprecatedSource")
    ev = core.read_namespaced_event(name, ns)
    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    ev.series = client.CoreV1EventSeries(count=100, last_observed_time=when)
    expect_equal(core.replace_namespaced_event(name, ns, ev).series.count, 100, "the updated series")
    core.delete_namespaced_event(name, ns)
    expect_equal(core.list_namespaced_event(ns, label_selector="testevent-constant=true").items, [], "after delete")


if __name__ == "__main__":
    main()
