#!/usr/bin/env python3
"""Inference components through boto3 the way AWS's developer guide sets them up: a model, an
endpoint configuration with an execution role and a variant without a model (managed instance
scaling, routing), the endpoint, a component with its compute resource requirements and one copy,
an invocation with InferenceComponentName, copies to zero (the 400 AWS answers) and back,
UpdateEndpoint onto another IC configuration (the component stays, on the new instance type), a
component from Specifications per instance type with a GPU partition profile and a data cache, the
paginator, and the teardown in AWS's order.

Usage: ic_calls.py ENDPOINT_URL

Prints one line per check and "all N inference component checks passed"; exits non-zero on the
first failure.
"""

import json
import sys

import boto3
from botocore.exceptions import ClientError
import peer
from peer import check, wait_for

ENDPOINT_URL = sys.argv[1]
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-ic-endpoint"
IC = "boto3-llm-ic"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", **kw)
smr = boto3.client("sagemaker-runtime", **kw)
sm.create_model(
    ModelName="boto3-ic-llm",
    ExecutionRoleArn=ROLE,
    PrimaryContainer={
        "Image": "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0-tgi2.4.0-gpu-py311-cu124-ubuntu22.04",
        "Environment": {"HF_MODEL_ID": "meta-llama/Llama-3.1-8B-Instruct", "SM_NUM_GPUS": "1"},
    },
)
sm.create_endpoint_config(
    EndpointConfigName="boto3-ic-config",
    ExecutionRoleArn=ROLE,
    ProductionVariants=[
        {
            "VariantName": "AllTraffic",
            "InstanceType": "ml.g5.12xlarge",
            "InitialInstanceCount": 1,
            "ModelDataDownloadTimeoutInSeconds": 3600,
            "ContainerStartupHealthCheckTimeoutInSeconds": 3600,
            "ManagedInstanceScaling": {"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 2},
            "RoutingConfig": {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"},
        }
    ],
)
config = sm.describe_endpoint_config(EndpointConfigName="boto3-ic-config")
check("the IC variant has no model", "ModelName" not in config["ProductionVariants"][0], config)
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-ic-config")
wait_for(
    "endpoint InService",
    lambda: sm.describe_endpoint(EndpointName=EP)["EndpointStatus"] == "InService",
)
check("endpoint InService", True)

sm.create_inference_component(
    InferenceComponentName=IC,
    EndpointName=EP,
    VariantName="AllTraffic",
    Specification={
        "ModelName": "boto3-ic-llm",
        "StartupParameters": {
            "ModelDataDownloadTimeoutInSeconds": 3600,
            "ContainerStartupHealthCheckTimeoutInSeconds": 3600,
        },
        "ComputeResourceRequirements": {
            "NumberOfAcceleratorDevicesRequired": 1,
            "NumberOfCpuCoresRequired": 4,
            "MinMemoryRequiredInMb": 16384,
        },
    },
    RuntimeConfig={"CopyCount": 1},
)


def status():
    return sm.describe_inference_component(InferenceComponentName=IC)


wait_for("component InService", lambda: status()["InferenceComponentStatus"] == "InService")
d = status()
check("one copy serving", d["RuntimeConfig"]["CurrentCopyCount"] == 1, d["RuntimeConfig"])
check("creation time is a datetime", hasattr(d["CreationTime"], "year"), d["CreationTime"])

body = json.dumps({"inputs": "What is an inference component?", "parameters": {"max_new_tokens": 32}})
r = smr.invoke_endpoint(EndpointName=EP, InferenceComponentName=IC, ContentType="application/json", Body=body)
answer = r["Body"].read().decode()
check("the component answers", "generated_text" in answer, answer)

sm.update_inference_component_runtime_config(InferenceComponentName=IC, DesiredRuntimeConfig={"CopyCount": 0})
wait_for("zero copies", lambda: status()["RuntimeConfig"]["CurrentCopyCount"] == 0)
try:
    smr.invoke_endpoint(EndpointName=EP, InferenceComponentName=IC, ContentType="application/json", Body=body)
    check("zero copies refused", False)
except ClientError as e:
    err = e.response["Error"]
    check(
        "zero copies refused with AWS's 400",
        e.response["ResponseMetadata"]["HTTPStatusCode"] == 400 and "no capacity" in err["Message"],
        err,
    )
sm.update_inference_component_runtime_config(InferenceComponentName=IC, DesiredRuntimeConfig={"CopyCount": 1})
wait_for("serving again", lambda: status()["RuntimeConfig"]["CurrentCopyCount"] == 1)
check("serving again", True)

sm.create_endpoint_config(
    EndpointConfigName="boto3-ic-config-g6",
    ExecutionRoleArn=ROLE,
    ProductionVariants=[
        {
            "VariantName": "AllTraffic",
            "InstanceType": "ml.g6.12xlarge",
            "InitialInstanceCount": 1,
            "ManagedInstanceScaling": {"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 3},
            "RoutingConfig": {"RoutingStrategy": "RANDOM"},
        }
    ],
)
sm.update_endpoint(EndpointName=EP, EndpointConfigName="boto3-ic-config-g6")


def moved():
    ep = sm.describe_endpoint(EndpointName=EP)
    return ep["EndpointStatus"] == "InService" and ep["EndpointConfigName"] == "boto3-ic-config-g6" and ep


ep = wait_for("endpoint updated onto the g6 config", moved)
variant = ep["ProductionVariants"][0]
check(
    "the variant's new scaling and routing",
    variant["ManagedInstanceScaling"]["MaxInstanceCount"] == 3
    and variant["RoutingConfig"]["RoutingStrategy"] == "RANDOM",
    variant,
)
wait_for(
    "the component placed on the new instance type",
    lambda: status()["RuntimeConfig"].get("PlacementStatus") == [{"InstanceType": "ml.g6.12xlarge", "CurrentCopyCount": 1}],
)
check("the component kept across UpdateEndpoint", status()["InferenceComponentStatus"] == "InService")

IC2 = "boto3-mig-ic"


def mig_spec(instance_type, profile):
    return {
        "InstanceType": instance_type,
        "ModelName": "boto3-ic-llm",
        "ComputeResourceRequirements": {
            "NumberOfAcceleratorDevicesRequired": 1,
            "AcceleratorPartitionType": profile,
            "NumberOfCpuCoresRequired": 2,
            "MinMemoryRequiredInMb": 8192,
        },
        "DataCacheConfig": {"EnableCaching": True},
    }


sm.create_inference_component(
    InferenceComponentName=IC2,
    EndpointName=EP,
    VariantName="AllTraffic",
    Specifications=[mig_spec("ml.g5.12xlarge", "mig-3g.40gb"), mig_spec("ml.g6.12xlarge", "mig-1g.10gb")],
    RuntimeConfig={"CopyCount": 1},
)
wait_for(
    "the partitioned component InService",
    lambda: sm.describe_inference_component(InferenceComponentName=IC2)["InferenceComponentStatus"] == "InService",
)
d2 = sm.describe_inference_component(InferenceComponentName=IC2)
g6 = [s for s in d2.get("Specifications", []) if s.get("InstanceType") == "ml.g6.12xlarge"]
check(
    "Specifications shown back with the partition profile and the data cache",
    len(d2.get("Specifications", [])) == 2
    and g6
    and g6[0]["ComputeResourceRequirements"]["AcceleratorPartitionType"] == "mig-1g.10gb"
    and g6[0]["DataCacheConfig"] == {"EnableCaching": True},
    d2,
)
check(
    "placed on the variant's instance type",
    d2["RuntimeConfig"].get("PlacementStatus") == [{"InstanceType": "ml.g6.12xlarge", "CurrentCopyCount": 1}],
    d2["RuntimeConfig"],
)
sm.delete_inference_component(InferenceComponentName=IC2)

names = [
    c["InferenceComponentName"]
    for page in sm.get_paginator("list_inference_components").paginate(EndpointNameEquals=EP)
    for c in page["InferenceComponents"]
]
check("the paginator lists the component", names in ([IC], [IC2, IC], [IC, IC2]), names)

wait_for("component InService before delete", lambda: status()["InferenceComponentStatus"] == "InService")
sm.delete_inference_component(InferenceComponentName=IC)


def gone(name):
    try:
        sm.describe_inference_component(InferenceComponentName=name)
        return False
    except ClientError as e:
        return "Could not find inference component" in e.response["Error"]["Message"]


wait_for("component deleted", lambda: gone(IC) and gone(IC2))
sm.delete_endpoint(EndpointName=EP)
sm.delete_endpoint_config(EndpointConfigName="boto3-ic-config")
sm.delete_endpoint_config(EndpointConfigName="boto3-ic-config-g6")
sm.delete_model(ModelName="boto3-ic-llm")
check("teardown in AWS's order", True)
print(f"all {peer.checks} inference component checks passed")
