"""The Python side of the e2e tests run with the official Kubernetes Python client (python3-kubernetes).

Each script beside this one re-implements upstream `It(...)`s of one `test/e2e` file as functions registered under
their upstream text; `python3 <script> <server-url> "<It text>"` runs one against a running simulator (the vitest
driver `python-client.test.ts` starts it) and exits 0 when it passes, 1 with the assertion and traceback otherwise.
"""

import sys
import traceback
import uuid

from kubernetes import client

TESTS = {}


def upstream(it_text):
    """Registers a test function under its upstream `It(...)` text."""

    def register(fn):
        TESTS[it_text] = fn
        return fn

    return register


def api_client(url):
    config = client.Configuration()
    config.host = url
    config.verify_ssl = False
    return client.ApiClient(config)


def new_namespace(api, base):
    """A fresh namespace for one test (the e2e framework's `f.Namespace`)."""
    name = f"{base}-py-{uuid.uuid4().hex[:8]}"
    client.CoreV1Api(api).create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    return name


def expect_equal(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def main():
    if len(sys.argv) != 3:
        print("usage: <script> <server-url> <It text>", file=sys.stderr)
        sys.exit(2)
    url, it_text = sys.argv[1], sys.argv[2]
    fn = TESTS.get(it_text)
    if fn is None:
        print(f"no test {it_text!r}; this script has: {sorted(TESTS)}", file=sys.stderr)
        sys.exit(2)
    try:
        with api_client(url) as api:
            fn(api)
    except Exception:  # noqa: BLE001 — every failure is reported with its traceback
        traceback.print_exc()
        sys.exit(1)
    print(f"PASS {it_text}")
