#!/usr/bin/env python3
"""A serverless endpoint through boto3 the way AWS's developer guide creates one: a model, an
endpoint configuration whose variant has a ServerlessConfig (memory, max concurrency,
provisioned concurrency), the endpoint, an invocation, CurrentServerlessConfig in
DescribeEndpoint, the throttle past max concurrency (retries off), and ServerlessUpdateConfig.

Usage: serverless_calls.py ENDPOINT_URL

Prints one line per check and "all N serverless checks passed"; exits non-zero on the first
failure.
"""

import sys
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
import peer
from peer import check

ENDPOINT_URL = sys.argv[1]
DEADLINE_SECS = 30.0
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-serverless"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", **kw)
smr = boto3.client("sagemaker-runtime", config=Config(retries={"total_max_attempts": 1}), **kw)
def wait_status(status):
    start = time.time()
    while time.time() - start < DEADLINE_SECS:
        d = sm.describe_endpoint(EndpointName=EP)
        if d["EndpointStatus"] == status:
            return d
        time.sleep(0.1)
    check(f"endpoint {status}", False, "(timed out)")


sm.create_model(
    ModelName="boto3-serverless-model",
    ExecutionRoleArn=ROLE,
    PrimaryContainer={
        "Image": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
        "ModelDataUrl": "s3://sagemaker-models/xgboost/model.tar.gz",
        # The sandbox's latency knob: each call keeps its container 30 s (simulated).
        "Environment": {"SAGEDECK_LATENCY_MS": "30000", "SAGEDECK_LATENCY_SIGMA": "0.01"},
    },
)
sm.create_endpoint_config(
    EndpointConfigName="boto3-serverless-config",
    ProductionVariants=[
        {
            "ModelName": "boto3-serverless-model",
            "VariantName": "AllTraffic",
            "ServerlessConfig": {"MemorySizeInMB": 4096, "MaxConcurrency": 2, "ProvisionedConcurrency": 1},
        }
    ],
)
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-serverless-config")
d = wait_status("InService")
v = d["ProductionVariants"][0]
check(
    "CurrentServerlessConfig as created",
    v.get("CurrentServerlessConfig") == {"MemorySizeInMB": 4096, "MaxConcurrency": 2, "ProvisionedConcurrency": 1},
    str(v),
)
check("no instance count on a serverless variant", "CurrentInstanceCount" not in v, str(v))

for n in range(2):
    r = smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
    check(f"invocation {n + 1} answered", r["ResponseMetadata"]["HTTPStatusCode"] == 200)
try:
    smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
    check("a third concurrent call is throttled", False)
except ClientError as e:
    check(
        "a third concurrent call is throttled",
        e.response["Error"]["Code"] == "ThrottlingException"
        and e.response["ResponseMetadata"]["HTTPStatusCode"] == 429,
        str(e.response),
    )

sm.update_endpoint_weights_and_capacities(
    EndpointName=EP,
    DesiredWeightsAndCapacities=[
        {"VariantName": "AllTraffic", "ServerlessUpdateConfig": {"MaxConcurrency": 4, "ProvisionedConcurrency": 2}}
    ],
)
d = sm.describe_endpoint(EndpointName=EP)
check("Updating while the change rolls out", d["EndpointStatus"] == "Updating", d["EndpointStatus"])
d = wait_status("InService")
v = d["ProductionVariants"][0]
check(
    "the new settings in force",
    v["CurrentServerlessConfig"] == {"MemorySizeInMB": 4096, "MaxConcurrency": 4, "ProvisionedConcurrency": 2},
    str(v),
)
r = smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
check("a third call fits the new max concurrency", r["ResponseMetadata"]["HTTPStatusCode"] == 200)
print(f"all {peer.checks} serverless checks passed")
