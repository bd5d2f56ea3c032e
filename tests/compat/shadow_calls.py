#!/usr/bin/env python3
"""A shadow variant through boto3 the way AWS's developer guide creates one: two models, an
endpoint configuration with one production variant and one ShadowProductionVariants entry, the
endpoint, DescribeEndpoint's ShadowProductionVariants, invocations always answered by production,
and the shadow's own Invocations in CloudWatch.

Usage: shadow_calls.py ENDPOINT_URL

Prints one line per check and "all N shadow checks passed"; exits non-zero on the first failure.
"""

import datetime
import sys
import time

import boto3
import peer
from peer import check, wait_for

ENDPOINT_URL = sys.argv[1]
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-shadow"
IMAGE = "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", **kw)
smr = boto3.client("sagemaker-runtime", **kw)
cw = boto3.client("cloudwatch", **kw)
for name in ("boto3-production-model", "boto3-shadow-model"):
    sm.create_model(
        ModelName=name,
        ExecutionRoleArn=ROLE,
        PrimaryContainer={"Image": IMAGE, "ModelDataUrl": f"s3://sagemaker-models/{name}/model.tar.gz"},
    )
sm.create_endpoint_config(
    EndpointConfigName="boto3-shadow-config",
    ProductionVariants=[
        {
            "VariantName": "production",
            "ModelName": "boto3-production-model",
            "InstanceType": "ml.m5.xlarge",
            "InitialInstanceCount": 1,
            "InitialVariantWeight": 1,
        }
    ],
    ShadowProductionVariants=[
        {
            "VariantName": "shadow",
            "ModelName": "boto3-shadow-model",
            "InstanceType": "ml.m5.xlarge",
            "InitialInstanceCount": 1,
            "InitialVariantWeight": 1,
        }
    ],
)
config = sm.describe_endpoint_config(EndpointConfigName="boto3-shadow-config")
check("the shadow is echoed", config["ShadowProductionVariants"][0]["VariantName"] == "shadow", str(config))
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-shadow-config")
d = wait_for("endpoint InService", lambda: (lambda d: d if d["EndpointStatus"] == "InService" else None)(sm.describe_endpoint(EndpointName=EP)))
check("DescribeEndpoint lists the shadow", [v["VariantName"] for v in d.get("ShadowProductionVariants", [])] == ["shadow"], str(d))
for _ in range(10):
    r = smr.invoke_endpoint(EndpointName=EP, ContentType="text/csv", Body=b"1,2,3")
    if r["InvokedProductionVariant"] != "production":
        check("production answers", False, str(r))
check("production answers every call", True)


def shadow_invocations():
    now = datetime.datetime.now(datetime.timezone.utc)
    out = cw.get_metric_data(
        MetricDataQueries=[
            {
                "Id": "s",
                "MetricStat": {
                    "Metric": {
                        "Namespace": "AWS/SageMaker",
                        "MetricName": "Invocations",
                        "Dimensions": [
                            {"Name": "EndpointName", "Value": EP},
                            {"Name": "VariantName", "Value": "shadow"},
                        ],
                    },
                    "Period": 60,
                    "Stat": "Sum",
                },
            }
        ],
        StartTime=now - datetime.timedelta(minutes=10),
        EndTime=now + datetime.timedelta(minutes=1),
    )
    return sum(out["MetricDataResults"][0]["Values"]) == 10


wait_for("the shadow's own Invocations", shadow_invocations)
check("the shadow counted its copies under its own VariantName", True)
print(f"all {peer.checks} shadow checks passed")
