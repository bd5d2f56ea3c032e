"""What the boto3 compatibility scripts share: client arguments for the sandbox, numbered checks
that stop at the first failure, and polling with a deadline (never a bare sleep)."""

import sys
import time

DEADLINE_SECS = 30.0
checks = 0


def client_args(endpoint_url, access_key="AKIDSANDBOX"):
    """boto3.client keyword arguments that reach the sandbox at `endpoint_url` (any keys do; the
    sandbox names the caller after the key: AKIDSANDBOX is alice, AKIDSANDBOXBOB bob)."""
    return dict(
        region_name="us-east-1",
        endpoint_url=endpoint_url,
        aws_access_key_id=access_key,
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


def ok(name, detail=""):
    """Counts a passed check and prints it (the alarm scripts' form: `ok   NAME: DETAIL`)."""
    global checks
    checks += 1
    print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)


def require(cond, what):
    """Prints `FAIL what` and exits non-zero unless `cond`."""
    if not cond:
        print(f"FAIL {what}", flush=True)
        sys.exit(1)


def poll_until(what, fn):
    """Polls `fn` every 50 ms until it returns something truthy (returned); `require` fails
    after the deadline."""
    start = time.monotonic()
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() - start > DEADLINE_SECS:
            require(False, f"timed out waiting for {what}")
        time.sleep(0.05)


def error_code(fn):
    """The AWS error code `fn` raised, or None when it succeeded."""
    from botocore.exceptions import ClientError

    try:
        fn()
    except ClientError as e:
        return e.response["Error"]["Code"]
    return None
