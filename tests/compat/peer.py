"""What the boto3 compatibility scripts share: client arguments for the sandbox, numbered checks
that stop at the first failure, and polling with a deadline (never a bare sleep)."""

import sys
import time

DEADLINE_SECS = 30.0
checks = 0


def client_args(endpoint_url):
    """boto3.client keyword arguments that reach the sandbox at `endpoint_url` (any keys do)."""
    return dict(
        region_name="us-east-1",
        endpoint_url=endpoint_url,
        aws_access_key_id="AKIDSANDBOX",
        aws_secret_access_key="sandbox-secret",
    )


def check(what, ok, detail=""):
    """Counts a passed check, or prints the failure and exits non-zero."""
    global checks
    if not ok:
        print(f"FAILED: {what} {detail}")
        sys.exit(1)
    checks += 1
    print(f"ok: {what}")


def wait_for(what, probe, counted=False):
    """Polls `probe` until it returns something truthy (returned), failing `what` after the
    deadline; with `counted`, reaching it is a check of its own."""
    start = time.time()
    while time.time() - start < DEADLINE_SECS:
        value = probe()
        if value:
            if counted:
                check(what, True)
            return value
        time.sleep(0.1)
    check(what, False, "(timed out)")
