#!/usr/bin/env python3
"""Scale to zero of an inference component through boto3 the way AWS's documentation sets it up:
an IC endpoint whose variant's ManagedInstanceScaling reaches 0 instances, a scalable target on
inference-component/NAME with MinCapacity 0, a target-tracking policy on
SageMakerInferenceComponentInvocationsPerCopy (the idle component scales in to zero, its instance
with it), a StepScaling policy (ChangeInCapacity +1) and the CloudWatch alarm on
NoCapacityInvocationFailures (InferenceComponentName, Sum, 60 s, 1 of 1, GreaterThanThreshold 1,
as AWS's example writes it) whose action is that policy. Then calls at zero answer AWS's 400 until
the alarm fires, the step policy adds a copy, the instance comes back and the component serves.
The endpoint is left in place for the caller to check.

Usage: ic_scale_to_zero.py ENDPOINT_URL

Prints one line per check and "all N scale-to-zero checks passed"; exits non-zero on the first
failure.
"""

import json
import sys

import boto3
from botocore.exceptions import ClientError
import peer
from peer import check

ENDPOINT_URL = sys.argv[1]
ROLE = "arn:aws:iam::123456789012:role/SageMakerExecutionRole"
EP = "boto3-zero-endpoint"
IC = "boto3-zero-ic"
RESOURCE = f"inference-component/{IC}"
DIMENSION = "sagemaker:inference-component:DesiredCopyCount"

kw = peer.client_args(ENDPOINT_URL)
sm = boto3.client("sagemaker", **kw)
smr = boto3.client("sagemaker-runtime", **kw)
aas = boto3.client("application-autoscaling", **kw)
cw = boto3.client("cloudwatch", **kw)
def copies():
    return sm.describe_inference_component(InferenceComponentName=IC)["RuntimeConfig"]


def instances():
    return sm.describe_endpoint(EndpointName=EP)["ProductionVariants"][0].get("CurrentInstanceCount")


sm.create_model(
    ModelName="boto3-zero-llm",
    ExecutionRoleArn=ROLE,
    PrimaryContainer={"Image": "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0"},
)
sm.create_endpoint_config(
    EndpointConfigName="boto3-zero-config",
    ExecutionRoleArn=ROLE,
    ProductionVariants=[
        {
            "VariantName": "AllTraffic",
            "InstanceType": "ml.g5.12xlarge",
            "InitialInstanceCount": 1,
            "ManagedInstanceScaling": {"Status": "ENABLED", "MinInstanceCount": 0, "MaxInstanceCount": 2},
            "RoutingConfig": {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"},
        }
    ],
)
sm.create_endpoint(EndpointName=EP, EndpointConfigName="boto3-zero-config")
peer.wait_for("endpoint InService", lambda: sm.describe_endpoint(EndpointName=EP)["EndpointStatus"] == "InService", counted=True)
sm.create_inference_component(
    InferenceComponentName=IC,
    EndpointName=EP,
    VariantName="AllTraffic",
    Specification={
        "ModelName": "boto3-zero-llm",
        "ComputeResourceRequirements": {
            "NumberOfAcceleratorDevicesRequired": 1,
            "NumberOfCpuCoresRequired": 4,
            "MinMemoryRequiredInMb": 16384,
        },
    },
    RuntimeConfig={"CopyCount": 1},
)
peer.wait_for("one copy serving", lambda: copies().get("CurrentCopyCount") == 1, counted=True)

aas.register_scalable_target(
    ServiceNamespace="sagemaker",
    ResourceId=RESOURCE,
    ScalableDimension=DIMENSION,
    MinCapacity=0,
    MaxCapacity=2,
)
aas.put_scaling_policy(
    PolicyName="boto3-zero-tracking",
    PolicyType="TargetTrackingScaling",
    ServiceNamespace="sagemaker",
    ResourceId=RESOURCE,
    ScalableDimension=DIMENSION,
    TargetTrackingScalingPolicyConfiguration={
        "PredefinedMetricSpecification": {"PredefinedMetricType": "SageMakerInferenceComponentInvocationsPerCopy"},
        "TargetValue": 5,
        "ScaleInCooldown": 3,
        "ScaleOutCooldown": 300,
    },
)
peer.wait_for("idle: scaled in to zero copies", lambda: copies().get("CurrentCopyCount") == 0, counted=True)
peer.wait_for("and to zero instances", lambda: instances() == 0, counted=True)

step = aas.put_scaling_policy(
    PolicyName="boto3-zero-step",
    PolicyType="StepScaling",
    ServiceNamespace="sagemaker",
    ResourceId=RESOURCE,
    ScalableDimension=DIMENSION,
    StepScalingPolicyConfiguration={
        "AdjustmentType": "ChangeInCapacity",
        "MetricAggregationType": "Maximum",
        "Cooldown": 60,
        "StepAdjustments": [{"MetricIntervalLowerBound": 0, "ScalingAdjustment": 1}],
    },
)
cw.put_metric_alarm(
    AlarmName="boto3-zero-wake",
    AlarmActions=[step["PolicyARN"]],
    MetricName="NoCapacityInvocationFailures",
    Namespace="AWS/SageMaker",
    Statistic="Sum",
    Dimensions=[{"Name": "InferenceComponentName", "Value": IC}],
    Period=60,
    EvaluationPeriods=1,
    DatapointsToAlarm=1,
    Threshold=1,
    ComparisonOperator="GreaterThanThreshold",
    TreatMissingData="missing",
)

body = json.dumps({"inputs": "Wake up.", "parameters": {"max_new_tokens": 8}})


def call():
    try:
        r = smr.invoke_endpoint(EndpointName=EP, InferenceComponentName=IC, ContentType="application/json", Body=body)
        return r["Body"].read().decode()
    except ClientError as e:
        err = e.response["Error"]
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        check("a call at zero answers AWS's 400", status == 400 and "no capacity" in err["Message"], err)
        return None


# Two failed calls: with GreaterThanThreshold 1 the first one alone does not fire the alarm.
for _ in range(2):
    check("refused at zero", call() is None)
peer.wait_for("the alarm fires", lambda: cw.describe_alarms(AlarmNames=["boto3-zero-wake"])["MetricAlarms"][0]["StateValue"] == "ALARM", counted=True)
peer.wait_for("the step policy adds a copy", lambda: copies().get("CurrentCopyCount") == 1, counted=True)
peer.wait_for("an instance came back", lambda: instances() == 1, counted=True)
answer = peer.wait_for("the component serves again", call, counted=True)
check("the answer is the model's", "generated_text" in answer, answer)
acts = aas.describe_scaling_activities(ServiceNamespace="sagemaker", ResourceId=RESOURCE)["ScalingActivities"]
wake = [a for a in acts if "boto3-zero-wake" in a["Cause"]]
check(
    "the activity names the alarm and the policy",
    wake and "triggered policy boto3-zero-step" in wake[0]["Cause"] and wake[0]["Description"] == "Setting desired copy count to 1.",
    acts,
)
print(f"all {peer.checks} scale-to-zero checks passed")
