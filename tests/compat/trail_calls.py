#!/usr/bin/env python3
"""CloudTrail and CloudWatch Logs' writes through boto3 against the sandbox (awsJson1_1): a
teammate's weight change with his own access key recorded under his name, a refused call with its
errorCode, LookupEvents' filters, paginator and refusals, a throttled call, and PutLogEvents'
rules read back by FilterLogEvents.

Usage: trail_calls.py ENDPOINT_URL

Prints one line per check and "all N trail checks passed"; exits non-zero on the first failure.
"""

import json
import sys
import time
import urllib.request

import boto3
import peer
from botocore.config import Config
from peer import check, error_code

URL = sys.argv[1]
EP = "mcp-intent-classifier-prod"
BOB = "AKIDSANDBOXBOB"

sm_bob = boto3.client("sagemaker", **peer.client_args(URL, access_key=BOB))
trail = boto3.client("cloudtrail", **peer.client_args(URL))
logs = boto3.client("logs", **peer.client_args(URL))


def weights(weight, variant="Canary"):
    return lambda: sm_bob.update_endpoint_weights_and_capacities(
        EndpointName=EP, DesiredWeightsAndCapacities=[{"VariantName": variant, "DesiredWeight": weight}]
    )


def lookup(key, value, **kw):
    return trail.lookup_events(LookupAttributes=[{"AttributeKey": key, "AttributeValue": value}], **kw)


# ---- a teammate's change and a refused one ------------------------------------------------------
weights(2.0)()
check("bob changes the canary's weight", True)
refused = error_code(weights(1.0, variant="Nope"))
check("an unknown variant is refused", refused == "ValidationException", refused)

events = lookup("Username", "bob")["Events"]
names = [e["EventName"] for e in events]
check("bob's two calls, newest first", names == ["UpdateEndpointWeightsAndCapacities"] * 2, names)
refusal, change = json.loads(events[0]["CloudTrailEvent"]), json.loads(events[1]["CloudTrailEvent"])
check("the refusal carries its errorCode", refusal.get("errorCode") == "ValidationException", refusal)
check("the refusal has no responseElements", refusal["responseElements"] is None, refusal)
check(
    "the change names bob",
    change["userIdentity"]["arn"] == "arn:aws:iam::123456789012:user/bob" and change["userIdentity"]["accessKeyId"] == BOB,
    change["userIdentity"],
)
check("the change has no errorCode", "errorCode" not in change, change)
params = change["requestParameters"]
check(
    "requestParameters carry CloudTrail's names",
    params == {"endpointName": EP, "desiredWeightsAndCapacities": [{"variantName": "Canary", "desiredWeight": 2.0}]},
    params,
)
check("boto3's user agent is recorded", change["userAgent"].startswith("Boto3/"), change["userAgent"])
check("EventTime parses as a datetime", hasattr(events[0]["EventTime"], "tzinfo"), events[0]["EventTime"])
check("Resources name the endpoint", {"ResourceType": "AWS::SageMaker::Endpoint", "ResourceName": EP} in events[0]["Resources"])

# ---- the paginator and the refusals -------------------------------------------------------------
for _ in range(12):
    sm_bob.list_endpoints()
pages = trail.get_paginator("lookup_events").paginate(
    LookupAttributes=[{"AttributeKey": "EventName", "AttributeValue": "ListEndpoints"}],
    PaginationConfig={"PageSize": 5},
)
sizes = [len(p["Events"]) for p in pages]
check("the paginator follows NextToken: 5, 5, 2", sizes == [5, 5, 2], sizes)
two = error_code(
    lambda: trail.lookup_events(
        LookupAttributes=[
            {"AttributeKey": "Username", "AttributeValue": "bob"},
            {"AttributeKey": "ReadOnly", "AttributeValue": "true"},
        ]
    )
)
check("one lookup attribute at most", two == "InvalidLookupAttributesException", two)
big = error_code(lambda: trail.lookup_events(MaxResults=51))
check("MaxResults at most 50", big == "InvalidMaxResultsException", big)
backwards = error_code(lambda: trail.lookup_events(StartTime=time.time(), EndTime=time.time() - 60))
check("a window that ends before it starts", backwards == "InvalidTimeRangeException", backwards)

# A throttled call (the sandbox's fault rule), seen by a client that does not retry.
fault = json.dumps({"operation": "LookupEvents", "kind": {"type": "throttle"}, "count": 1}).encode()
req = urllib.request.Request(f"{URL}/_sandbox/faults", data=fault, headers={"content-type": "application/json"})
urllib.request.urlopen(req).read()
once = boto3.client("cloudtrail", config=Config(retries={"total_max_attempts": 1}), **peer.client_args(URL))
throttled = error_code(lambda: once.lookup_events())
check("a throttled lookup answers ThrottlingException", throttled == "ThrottlingException", throttled)

# ---- CloudWatch Logs' writes --------------------------------------------------------------------
GROUP, STREAM = "/sagedeck/audit", "bob/host-b"
logs.create_log_group(logGroupName=GROUP)
again = error_code(lambda: logs.create_log_group(logGroupName=GROUP))
check("a group is created once", again == "ResourceAlreadyExistsException", again)
missing = error_code(lambda: logs.put_log_events(logGroupName=GROUP, logStreamName=STREAM, logEvents=[{"timestamp": 1, "message": "x"}]))
check("no stream yet", missing == "ResourceNotFoundException", missing)
logs.create_log_stream(logGroupName=GROUP, logStreamName=STREAM)
now = int(time.time() * 1000)
disorder = error_code(
    lambda: logs.put_log_events(
        logGroupName=GROUP, logStreamName=STREAM, logEvents=[{"timestamp": now, "message": "b"}, {"timestamp": now - 5, "message": "a"}]
    )
)
check("a batch out of order is refused", disorder == "InvalidParameterException", disorder)
put = logs.put_log_events(
    logGroupName=GROUP,
    logStreamName=STREAM,
    logEvents=[
        {"timestamp": now - 2000, "message": '{"kind": "promote.step", "step": "2/4"}'},
        {"timestamp": now - 1000, "message": '{"kind": "weights.set", "by": "bob"}'},
        {"timestamp": now + 3 * 3600 * 1000, "message": "from the future"},
    ],
)
check("a too-new event is rejected alone", put.get("rejectedLogEventsInfo") == {"tooNewLogEventStartIndex": 2}, put)
found = logs.filter_log_events(logGroupName=GROUP, filterPattern='{ $.kind = "weights.set" }')["events"]
check("FilterLogEvents reads what was put", [e["message"] for e in found] == ['{"kind": "weights.set", "by": "bob"}'], found)
got = logs.get_log_events(logGroupName=GROUP, logStreamName=STREAM, startFromHead=True)["events"]
check("GetLogEvents reads both, in order", [e["timestamp"] for e in got] == [now - 2000, now - 1000], got)

print(f"all {peer.checks} trail checks passed")
