#!/usr/bin/env python3
"""boto3 against the sandbox's SageMaker control plane, with AWS's API model (botocore's
service-2.json) as the judge: every constrained member the sandbox reads is sent a value the model
refuses and must come back as AWS's ValidationException naming that member; tags are added,
listed and deleted as AWS does.

Usage: model_checks.py ENDPOINT_URL

Prints `instance-types JSON` (the model's ProductionVariantInstanceType enum, for the Rust side to
compare with the sandbox's list), one `ok` line per check, and exits non-zero on the first failure.
"""

import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

URL = sys.argv[1]
# No client-side validation: the values the model refuses must reach the sandbox.
sm = boto3.client(
    "sagemaker",
    region_name="us-east-1",
    endpoint_url=URL,
    aws_access_key_id="AKIDSANDBOX",
    aws_secret_access_key="sandbox-secret",
    config=Config(parameter_validation=False, retries={"max_attempts": 1}),
)
model = sm.meta.service_model


def fail(what):
    print(f"FAIL {what}", flush=True)
    sys.exit(1)


def refused(call, **kwargs):
    """The ValidationException message of a call that must be refused."""
    try:
        getattr(sm, call)(**kwargs)
    except ClientError as e:
        if e.response["Error"]["Code"] != "ValidationException":
            fail(f"{call}: {e.response['Error']}")
        return e.response["Error"]["Message"]
    fail(f"{call} {kwargs} was accepted")


def shape_at(op, path):
    """The botocore shape of a member path (`ProductionVariants.0.InstanceType`) of op's input."""
    shape = model.operation_model(op).input_shape
    for part in path.split("."):
        shape = shape.member if part.isdigit() else shape.members[part]
    return shape


def violation(shape, current):
    """A value the model refuses for a shape (`current` is the accepted one), and the constraint
    AWS's message names."""
    meta = shape.metadata
    if getattr(shape, "enum", None):
        return "not-in-the-enum", "Member must satisfy enum value set: ["
    if shape.type_name == "string" and "pattern" in meta:
        return "bad_value!", "Member must satisfy regular expression pattern: "
    if shape.type_name == "string" and "max" in meta:
        return "x" * (meta["max"] + 1), f"Member must have length less than or equal to {meta['max']}"
    if shape.type_name in ("integer", "float", "long") and "min" in meta:
        return meta["min"] - 1, f"Member must have value greater than or equal to {meta['min']}"
    if shape.type_name == "list" and "max" in meta:
        if current:
            items = [current[0]] * (meta["max"] + 1)
        elif shape.member.name == "Tag":
            items = [{"Key": f"k{i}", "Value": "v"} for i in range(meta["max"] + 1)]
        else:
            items = [f"k{i}" for i in range(meta["max"] + 1)]
        return items, f"Member must have length less than or equal to {meta['max']}"
    fail(f"no violation known for {shape.name} {meta}")


def aws_path(path):
    """The member path as AWS's messages write it: `productionVariants.1.member.instanceType`."""
    out = []
    for part in path.split("."):
        out.append(f"{int(part) + 1}.member" if part.isdigit() else part[0].lower() + part[1:])
    return ".".join(out)


def get_path(request, path):
    target = request
    for part in path.split("."):
        if part.isdigit():
            target = target[int(part)]
        elif isinstance(target, dict) and part in target:
            target = target[part]
        else:
            return None
    return target


def set_path(request, path, value):
    target = request
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    last = parts[-1]
    target[int(last) if last.isdigit() else last] = value


ARN = "arn:aws:sagemaker:us-east-1:123456789012:endpoint/mcp-intent-classifier-prod"
VARIANT = {"VariantName": "A", "ModelName": "mcp-intent-classifier-v4", "InstanceType": "ml.m5.large", "InitialInstanceCount": 1}
SERVERLESS = {"VariantName": "S", "ModelName": "mcp-intent-classifier-v4", "ServerlessConfig": {"MemorySizeInMB": 2048, "MaxConcurrency": 5}}
# (operation, a request the model accepts, the member paths to break one at a time)
PROBES = [
    ("CreateModel", {"ModelName": "m1", "PrimaryContainer": {"Image": "img:1", "Mode": "SingleModel", "ModelDataUrl": "s3://b/k"},
                     "ExecutionRoleArn": "arn:aws:iam::123456789012:role/R"},
     ["ModelName", "PrimaryContainer.Mode", "PrimaryContainer.ModelDataUrl", "PrimaryContainer.ContainerHostname",
      "ExecutionRoleArn", "Tags"]),
    ("DescribeModel", {"ModelName": "m1"}, ["ModelName"]),
    ("DeleteModel", {"ModelName": "m1"}, ["ModelName"]),
    ("CreateEndpointConfig", {"EndpointConfigName": "c1", "ProductionVariants": [dict(VARIANT), json.loads(json.dumps(SERVERLESS))]},
     ["EndpointConfigName", "ProductionVariants.0.VariantName", "ProductionVariants.0.ModelName",
      "ProductionVariants.0.InstanceType", "ProductionVariants.0.InitialInstanceCount",
      "ProductionVariants.0.InitialVariantWeight", "ProductionVariants.0.AcceleratorType",
      "ProductionVariants.0.VolumeSizeInGB", "ProductionVariants.1.ServerlessConfig.MemorySizeInMB",
      "ProductionVariants.1.ServerlessConfig.MaxConcurrency", "ProductionVariants", "Tags"]),
    ("DescribeEndpointConfig", {"EndpointConfigName": "c1"}, ["EndpointConfigName"]),
    ("DeleteEndpointConfig", {"EndpointConfigName": "c1"}, ["EndpointConfigName"]),
    ("CreateEndpoint", {"EndpointName": "e1", "EndpointConfigName": "c1"}, ["EndpointName", "EndpointConfigName", "Tags"]),
    ("DescribeEndpoint", {"EndpointName": "e1"}, ["EndpointName"]),
    ("DeleteEndpoint", {"EndpointName": "e1"}, ["EndpointName"]),
    ("UpdateEndpoint", {"EndpointName": "e1", "EndpointConfigName": "c1", "RetainAllVariantProperties": True,
                        "ExcludeRetainedVariantProperties": [{"VariantPropertyType": "DesiredWeight"}]},
     ["EndpointName", "EndpointConfigName", "ExcludeRetainedVariantProperties.0.VariantPropertyType"]),
    ("UpdateEndpoint", {"EndpointName": "e1", "EndpointConfigName": "c1", "DeploymentConfig": {
        "BlueGreenUpdatePolicy": {
            "TrafficRoutingConfiguration": {"Type": "CANARY", "WaitIntervalInSeconds": 60,
                                            "CanarySize": {"Type": "INSTANCE_COUNT", "Value": 1}},
            "TerminationWaitInSeconds": 60, "MaximumExecutionTimeoutInSeconds": 1800},
        "AutoRollbackConfiguration": {"Alarms": [{"AlarmName": "a"}]}}},
     ["DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.Type",
      "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.WaitIntervalInSeconds",
      "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.CanarySize.Type",
      "DeploymentConfig.BlueGreenUpdatePolicy.TrafficRoutingConfiguration.CanarySize.Value",
      "DeploymentConfig.BlueGreenUpdatePolicy.TerminationWaitInSeconds",
      "DeploymentConfig.BlueGreenUpdatePolicy.MaximumExecutionTimeoutInSeconds",
      "DeploymentConfig.AutoRollbackConfiguration.Alarms"]),
    ("UpdateEndpoint", {"EndpointName": "e1", "EndpointConfigName": "c1", "DeploymentConfig": {
        "RollingUpdatePolicy": {
            "MaximumBatchSize": {"Type": "CAPACITY_PERCENT", "Value": 25}, "WaitIntervalInSeconds": 60,
            "MaximumExecutionTimeoutInSeconds": 1800,
            "RollbackMaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}}},
     ["DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize.Type",
      "DeploymentConfig.RollingUpdatePolicy.MaximumBatchSize.Value",
      "DeploymentConfig.RollingUpdatePolicy.WaitIntervalInSeconds",
      "DeploymentConfig.RollingUpdatePolicy.MaximumExecutionTimeoutInSeconds",
      "DeploymentConfig.RollingUpdatePolicy.RollbackMaximumBatchSize.Value"]),
    ("UpdateEndpointWeightsAndCapacities", {"EndpointName": "e1", "DesiredWeightsAndCapacities": [
        {"VariantName": "A", "DesiredWeight": 1.0, "DesiredInstanceCount": 1}]},
     ["EndpointName", "DesiredWeightsAndCapacities.0.VariantName", "DesiredWeightsAndCapacities.0.DesiredWeight",
      "DesiredWeightsAndCapacities.0.DesiredInstanceCount"]),
    ("ListModels", {}, ["SortBy", "SortOrder", "MaxResults", "NameContains"]),
    ("ListEndpointConfigs", {}, ["SortBy", "SortOrder", "MaxResults", "NameContains"]),
    ("ListEndpoints", {}, ["SortBy", "SortOrder", "MaxResults", "NameContains", "StatusEquals"]),
    ("AddTags", {"ResourceArn": ARN, "Tags": [{"Key": "k", "Value": "v"}]}, ["ResourceArn", "Tags", "Tags.0.Key", "Tags.0.Value"]),
    ("ListTags", {"ResourceArn": ARN}, ["ResourceArn", "MaxResults"]),
    ("DeleteTags", {"ResourceArn": ARN, "TagKeys": ["k"]}, ["ResourceArn", "TagKeys", "TagKeys.0"]),
]


def snake(op):
    return "".join("_" + c.lower() if c.isupper() else c for c in op).lstrip("_")


def probe_every_member():
    count = 0
    for op, base, paths in PROBES:
        for path in paths:
            request = json.loads(json.dumps(base))
            value, constraint = violation(shape_at(op, path), get_path(request, path))
            set_path(request, path, value)
            message = refused(snake(op), **request)
            want = f"at '{aws_path(path)}' failed to satisfy constraint: {constraint}"
            if want not in message:
                fail(f"{op} {path}: {want!r} not in {message!r}")
            count += 1
    print(f"ok   every constrained member refused as the model says ({count} probes)", flush=True)


def moto_shaped_refusals():
    message = refused("create_endpoint_config", EndpointConfigName="c2",
                      ProductionVariants=[dict(VARIANT, InstanceType="InvalidInstanceType")])
    if not message.startswith("1 validation error detected: Value 'InvalidInstanceType' at "
                              "'productionVariants.1.member.instanceType' failed to satisfy constraint: "
                              "Member must satisfy enum value set: [ml.t2.medium, "):
        fail(message)
    message = refused("create_endpoint_config", EndpointConfigName="c2",
                      ProductionVariants=[dict(SERVERLESS, ServerlessConfig={"MemorySizeInMB": 1111, "MaxConcurrency": 5})])
    if "Value '1111' at 'productionVariants.1.member.serverlessConfig.memorySizeInMB' failed to satisfy constraint: " \
       "Member must satisfy enum value set: [1024, 2048, 3072, 4096, 5120, 6144]" not in message:
        fail(message)
    for memory in (1024, 6144):
        sm.create_endpoint_config(EndpointConfigName=f"serverless-{memory}",
                                  ProductionVariants=[dict(SERVERLESS, ServerlessConfig={"MemorySizeInMB": memory, "MaxConcurrency": 5})])
    print("ok   InstanceType and MemorySizeInMB refused with AWS's message shape", flush=True)


def tags():
    tags = [{"Key": "team", "Value": "ml-platform"}, {"Key": "cost-center", "Value": "42"}]
    arn = sm.create_model(ModelName="tagged-model", PrimaryContainer={"Image": "img:1"},
                          ExecutionRoleArn="arn:aws:iam::123456789012:role/R", Tags=tags)["ModelArn"]
    if sm.list_tags(ResourceArn=arn)["Tags"] != tags:
        fail(f"tags given at CreateModel: {sm.list_tags(ResourceArn=arn)}")
    sm.add_tags(ResourceArn=arn, Tags=[{"Key": "team", "Value": "infra"}, {"Key": "owner", "Value": "alice"}])
    sm.delete_tags(ResourceArn=arn, TagKeys=["cost-center", "absent"])
    got = sm.list_tags(ResourceArn=arn)["Tags"]
    if got != [{"Key": "team", "Value": "infra"}, {"Key": "owner", "Value": "alice"}]:
        fail(f"after add and delete: {got}")
    message = refused("add_tags", ResourceArn=arn, Tags=[{"Key": "aws:owner", "Value": "x"}])
    if "aws:" not in message:
        fail(message)
    message = refused("list_tags", ResourceArn=arn.replace("tagged-model", "no-such-model"))
    if "Could not find model" not in message:
        fail(message)
    print("ok   AddTags, ListTags and DeleteTags", flush=True)


names = model.shape_for("ProductionVariantInstanceType").enum
print("instance-types " + json.dumps(names), flush=True)
probe_every_member()
moto_shaped_refusals()
tags()
print("all model checks passed", flush=True)
