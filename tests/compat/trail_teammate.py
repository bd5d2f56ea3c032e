#!/usr/bin/env python3
"""A teammate (bob, his own access key) changes an endpoint's weights through boto3, then makes a
call SageMaker refuses (an endpoint configuration that does not exist): what `sagedeck timeline`
must show with his name.

Usage: trail_teammate.py ENDPOINT_URL ENDPOINT

Prints "principal ARN" (bob's, from STS) and one line per check; exits non-zero on a failure.
"""

import sys

import boto3
import peer
from peer import check, error_code

URL, EP = sys.argv[1], sys.argv[2]
BOB = "AKIDSANDBOXBOB"

sm = boto3.client("sagemaker", **peer.client_args(URL, access_key=BOB))
sts = boto3.client("sts", **peer.client_args(URL, access_key=BOB))

arn = sts.get_caller_identity()["Arn"]
print(f"principal {arn}")
check("bob is not alice", arn.endswith("/bob"), arn)

peer.wait_for(
    f"{EP} is InService",
    lambda: sm.describe_endpoint(EndpointName=EP)["EndpointStatus"] == "InService",
)
sm.update_endpoint_weights_and_capacities(
    EndpointName=EP,
    DesiredWeightsAndCapacities=[
        {"VariantName": "Stable", "DesiredWeight": 7.0},
        {"VariantName": "Canary", "DesiredWeight": 3.0},
    ],
)
check("bob's weight change is accepted", True)
code = error_code(lambda: sm.update_endpoint(EndpointName=EP, EndpointConfigName="no-such-config"))
check("an unknown configuration is refused", code == "ValidationException", str(code))
print(f"all {peer.checks} teammate checks passed")
