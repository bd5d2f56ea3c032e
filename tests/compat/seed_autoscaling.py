# The seed article's autoscaling snippet, unmodified but for endpoint_url (and ENDPOINT_NAME, which
# the article defines elsewhere): run as `python seed_autoscaling.py ENDPOINT_URL ENDPOINT_NAME`.
# Against AWS (and the sandbox) the second put_scaling_policy raises a ValidationException.
import sys

ENDPOINT_URL, ENDPOINT_NAME = sys.argv[1], sys.argv[2]

import boto3

autoscaling = boto3.client("application-autoscaling", region_name="us-east-1", endpoint_url=ENDPOINT_URL)

resource_id = f"endpoint/{ENDPOINT_NAME}/variant/AllTraffic"

# Register the endpoint variant as a scalable target
autoscaling.register_scalable_target(
    ServiceNamespace="sagemaker",
    ResourceId=resource_id,
    ScalableDimension="sagemaker:variant:DesiredInstanceCount",
    MinCapacity=1,
    MaxCapacity=8,
)

# Target tracking: maintain ≤70 invocations per instance per minute
autoscaling.put_scaling_policy(
    PolicyName="mcp-endpoint-invocations-policy",
    ServiceNamespace="sagemaker",
    ResourceId=resource_id,
    ScalableDimension="sagemaker:variant:DesiredInstanceCount",
    PolicyType="TargetTrackingScaling",
    TargetTrackingScalingPolicyConfiguration={
        "TargetValue": 70.0,
        "PredefinedMetricSpecification": {
            "PredefinedMetricType": "SageMakerVariantInvocationsPerInstance",
        },
        "ScaleInCooldown": 300,   # 5 minutes — avoid thrashing
        "ScaleOutCooldown": 60,   # 1 minute — scale out fast for MCP bursts
    },
)
print("first policy accepted", flush=True)

# For ML-latency-sensitive tools: scale on ModelLatency P99 instead
autoscaling.put_scaling_policy(
    PolicyName="mcp-endpoint-latency-policy",
    ServiceNamespace="sagemaker",
    ResourceId=resource_id,
    ScalableDimension="sagemaker:variant:DesiredInstanceCount",
    PolicyType="TargetTrackingScaling",
    TargetTrackingScalingPolicyConfiguration={
        "TargetValue": 500.0,   # target P99 latency ≤500ms
        "CustomizedMetricSpecification": {
            "MetricName": "ModelLatency",
            "Namespace": "/aws/sagemaker/Endpoints",
            "Dimensions": [
                {"Name": "EndpointName", "Value": ENDPOINT_NAME},
                {"Name": "VariantName", "Value": "AllTraffic"},
            ],
            "Statistic": "p99",
            "Unit": "Microseconds",
        },
        "ScaleInCooldown": 300,
        "ScaleOutCooldown": 60,
    },
)
print("second policy accepted", flush=True)
