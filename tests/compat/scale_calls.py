#!/usr/bin/env python3
"""The sandbox's scale features through boto3: LastModifiedTime moving on every change (and on
nothing else) with ListEndpoints and DescribeEndpoint agreeing, ListEndpoints'
LastModifiedTimeAfter (strict at the millisecond, paged), the call counts of `/_sandbox/calls`,
and the control plane's throttle (`/_sandbox/throttle`) answering ThrottlingException, which
botocore's standard retry mode retries.

Usage: scale_calls.py ENDPOINT_URL

Prints one line per check and "all N scale checks passed"; exits non-zero on the first failure.
"""

import datetime
import json
import sys
import urllib.request

import boto3
import peer
from botocore.config import Config
from peer import check, error_code, wait_for

ENDPOINT_URL = sys.argv[1]
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-scale"
IMAGE = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", config=Config(retries={"total_max_attempts": 1}), **kw)
smr = boto3.client("sagemaker-runtime", **kw)


def admin(method, path, body=None):
    """An admin request's JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(ENDPOINT_URL + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def counted(answer, op):
    """(calls, throttled) of sagemaker's `op` in us-east-1 in a /_sandbox/calls answer."""
    for row in answer["calls"]:
        if (row["region"], row["service"], row["operation"]) == ("us-east-1", "sagemaker", op):
            return row["calls"], row["throttled"]
    return 0, 0


def modified():
    """(status, DescribeEndpoint's LastModifiedTime, ListEndpoints' LastModifiedTime)."""
    d = sm.describe_endpoint(EndpointName=EP)
    items = sm.list_endpoints(NameContains=EP)["Endpoints"]
    listed = [e for e in items if e["EndpointName"] == EP]
    return d["EndpointStatus"], d["LastModifiedTime"], listed[0]["LastModifiedTime"]


def in_service():
    status, described, listed = modified()
    return (described, listed) if status == "InService" else None


sm.create_model(
    ModelName="boto3-scale-model",
    ExecutionRoleArn=ROLE,
    PrimaryContainer={"Image": IMAGE, "ModelDataUrl": "s3://sagemaker-models/scale/model.tar.gz"},
)
sm.create_endpoint_config(
    EndpointConfigName="boto3-scale-config",
    ProductionVariants=[
        {"VariantName": "A", "ModelName": "boto3-scale-model", "InstanceType": "ml.m5.large",
         "InitialInstanceCount": 1, "InitialVariantWeight": 1},
        {"VariantName": "B", "ModelName": "boto3-scale-model", "InstanceType": "ml.m5.large",
         "InitialInstanceCount": 1, "InitialVariantWeight": 1},
    ],
)
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-scale-config")
status, created, listed = modified()
check("Creating: ListEndpoints and DescribeEndpoint agree", status == "Creating" and created == listed)
live, live_listed = wait_for("InService", in_service)
check("InService moved LastModifiedTime, both agree", live > created and live == live_listed)
for _ in range(5):
    smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
status, same, same_listed = modified()
check("invocations and reads move nothing", (status, same, same_listed) == ("InService", live, live))
sm.update_endpoint_weights_and_capacities(
    EndpointName=EP, DesiredWeightsAndCapacities=[{"VariantName": "B", "DesiredWeight": 3}]
)
status, updating, updating_listed = modified()
check("a weight change moves it (Updating)", status == "Updating" and updating > live and updating == updating_listed)
done, done_listed = wait_for("InService again", in_service)
check("the update's end moves it again", done > updating and done == done_listed)


def listed_after(after, page_size=100):
    """Names ListEndpoints gives, every page, for LastModifiedTimeAfter=after; and the pages."""
    names, pages, kwargs = [], 0, {"LastModifiedTimeAfter": after, "MaxResults": page_size}
    while True:
        page = sm.list_endpoints(**kwargs)
        pages += 1
        names += [e["EndpointName"] for e in page["Endpoints"]]
        if "NextToken" not in page:
            return names, pages
        kwargs["NextToken"] = page["NextToken"]


check("LastModifiedTimeAfter its own LastModifiedTime leaves it out", EP not in listed_after(done)[0])
check("a millisecond earlier keeps it", EP in listed_after(done - datetime.timedelta(milliseconds=1))[0])
everything, _ = listed_after(datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc))
paged, pages = listed_after(datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc), page_size=1)
check("LastModifiedTimeAfter pages", paged == everything and pages == len(everything) and EP in paged)

counts = admin("GET", "/_sandbox/calls")
check("calls are counted by region, service and operation", counted(counts, "UpdateEndpointWeightsAndCapacities") == (1, 0))
check("DescribeEndpoint counted", counted(counts, "DescribeEndpoint")[0] >= 4)
cleared = admin("DELETE", "/_sandbox/calls")
check("DELETE answers what it cleared", cleared["total"] == counts["total"])
check("and the counts start again", admin("GET", "/_sandbox/calls")["total"] == 0)

admin("POST", "/_sandbox/throttle", {"rate": 0.5, "burst": 1})
sm.list_endpoints()
try:
    sm.list_endpoints()
    check("past the burst the call is throttled", False)
except sm.exceptions.ClientError as e:
    check("past the burst: ThrottlingException", e.response["Error"]["Code"] == "ThrottlingException")
    check("with HTTP 400", e.response["ResponseMetadata"]["HTTPStatusCode"] == 400)
check("and the count says throttled", counted(admin("GET", "/_sandbox/calls"), "ListEndpoints") == (2, 1))

admin("POST", "/_sandbox/throttle", {"rate": 2, "burst": 1})
retrying = boto3.client("sagemaker", config=Config(retries={"mode": "standard", "max_attempts": 10}), **kw)
for _ in range(3):
    retrying.list_endpoints()
calls, throttled = counted(admin("GET", "/_sandbox/calls"), "ListEndpoints")
retried = throttled - 1
check("standard retry mode retries ThrottlingException", retried >= 1 and calls == 2 + 3 + retried)
admin("DELETE", "/_sandbox/throttle")
check("lifted", error_code(lambda: [sm.list_endpoints() for _ in range(5)]) is None)
print(f"all {peer.checks} scale checks passed")
