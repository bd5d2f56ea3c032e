#!/usr/bin/env python3
"""An asynchronous endpoint through boto3 the way AWS's developer guide sets one up: a bucket, the
input uploaded with upload_fileobj, a model, an endpoint configuration with an
AsyncInferenceConfig (output and failure paths, max concurrent invocations per instance), the
endpoint, invoke_endpoint_async with an InputLocation, the output object polled for (there is no
status API), a failing request's failure object, a request that expired in the queue (the
sandbox's queue_expiry fault, set over its admin route) and the failure object saying so, and the
synchronous invoke refused.

Usage: async_calls.py ENDPOINT_URL

Prints one line per check and "all N async checks passed"; exits non-zero on the first failure.
"""

import io
import json
import sys
import urllib.request

import boto3
from botocore.exceptions import ClientError
import peer
from peer import check, wait_for

ENDPOINT_URL = sys.argv[1]
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-async"
BUCKET = "boto3-async-io"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", **kw)
smr = boto3.client("sagemaker-runtime", **kw)
s3 = boto3.client("s3", **kw)
def object_at(location):
    bucket, key = location[len("s3://"):].split("/", 1)
    try:
        return s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except ClientError as e:
        if e.response["Error"]["Code"] in ("NoSuchKey", "404"):
            return None
        raise


s3.create_bucket(Bucket=BUCKET)
s3.upload_fileobj(io.BytesIO(b"1,2,3\n"), BUCKET, "input/payload.csv")
head = s3.head_object(Bucket=BUCKET, Key="input/payload.csv")
check("the uploaded input is there", head["ContentLength"] == 6, str(head))

sm.create_model(
    ModelName="boto3-async-model",
    ExecutionRoleArn=ROLE,
    PrimaryContainer={
        "Image": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
        "ModelDataUrl": "s3://sagemaker-models/xgboost/model.tar.gz",
    },
)
sm.create_endpoint_config(
    EndpointConfigName="boto3-async-config",
    ProductionVariants=[
        {
            "VariantName": "variant1",
            "ModelName": "boto3-async-model",
            "InstanceType": "ml.m5.xlarge",
            "InitialInstanceCount": 1,
        }
    ],
    AsyncInferenceConfig={
        "OutputConfig": {
            "S3OutputPath": f"s3://{BUCKET}/output",
            "S3FailurePath": f"s3://{BUCKET}/failure",
            "NotificationConfig": {
                "SuccessTopic": "arn:aws:sns:us-east-1:123456789012:async-success",
                "ErrorTopic": "arn:aws:sns:us-east-1:123456789012:async-error",
            },
        },
        "ClientConfig": {"MaxConcurrentInvocationsPerInstance": 4},
    },
)
config = sm.describe_endpoint_config(EndpointConfigName="boto3-async-config")
check(
    "the AsyncInferenceConfig is echoed",
    config["AsyncInferenceConfig"]["ClientConfig"]["MaxConcurrentInvocationsPerInstance"] == 4,
    str(config),
)
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-async-config")
wait_for("endpoint InService", lambda: sm.describe_endpoint(EndpointName=EP)["EndpointStatus"] == "InService")

r = smr.invoke_endpoint_async(
    EndpointName=EP, ContentType="text/csv", InputLocation=f"s3://{BUCKET}/input/payload.csv", InferenceId="boto3-1"
)
check("202 Accepted", r["ResponseMetadata"]["HTTPStatusCode"] == 202, str(r))
check("the output location", r["OutputLocation"] == f"s3://{BUCKET}/output/boto3-1.out", str(r))
check("the failure location", r["FailureLocation"] == f"s3://{BUCKET}/failure/boto3-1-error.out", str(r))
answer = wait_for("the output object", lambda: object_at(r["OutputLocation"]))
check("the output has the model's answer", len(answer) > 0, repr(answer))

bad = smr.invoke_endpoint_async(EndpointName=EP, ContentType="text/csv", InputLocation=f"s3://{BUCKET}/input/nothing.csv")
failure = wait_for("the failure object", lambda: object_at(bad["FailureLocation"]))
check("the failure says why", b"DownloadFailure" in failure, repr(failure))

fault = {"endpoint": EP, "operation": "AsyncQueue", "kind": {"type": "queue_expiry"}, "count": 1}
req = urllib.request.Request(
    f"{ENDPOINT_URL}/_sandbox/faults", data=json.dumps(fault).encode(), headers={"content-type": "application/json"}
)
urllib.request.urlopen(req).read()
late = smr.invoke_endpoint_async(
    EndpointName=EP, ContentType="text/csv", InputLocation=f"s3://{BUCKET}/input/payload.csv", RequestTTLSeconds=60
)
expired = wait_for("the expired request's failure object", lambda: object_at(late["FailureLocation"]))
check(
    "the failure object says it expired in the queue",
    b"expired" in expired and b"queue" in expired and b"RequestTTLSeconds (60 s)" in expired,
    repr(expired),
)
check("an expired request writes no output", object_at(late["OutputLocation"]) is None)

try:
    smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
    check("a synchronous invoke is refused", False)
except ClientError as e:
    check("a synchronous invoke is refused", e.response["Error"]["Code"] == "ValidationError", str(e.response))
print(f"all {peer.checks} async checks passed")
