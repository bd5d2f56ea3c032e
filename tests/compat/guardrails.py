"""Deployment guardrails with boto3 against the sandbox: canary, linear, all at once and rolling
to success, a rollback by an alarm in ALARM, a refusal, and UpdateRollbackFailed (the fault is set
on endpoint `py-urf` by the Rust test before this runs). The sandbox runs a policy's waits at a
hundredth, so every deployment ends within seconds."""

import time

import boto3
from botocore.exceptions import ClientError

sm = boto3.client("sagemaker")
cw = boto3.client("cloudwatch")
DEADLINE = 30.0


def describe(name):
    return sm.describe_endpoint(EndpointName=name)


def wait(name, what, check):
    """Polls DescribeEndpoint until check(d) holds; returns d and every pending status seen."""
    seen, end = [], time.time() + DEADLINE
    while time.time() < end:
        d = describe(name)
        pending = d.get("PendingDeploymentSummary")
        if pending:
            s = pending["ProductionVariants"][0]["VariantStatus"][0]
            if not seen or seen[-1] != (s["Status"], s["StatusMessage"]):
                seen.append((s["Status"], s["StatusMessage"]))
        if check(d):
            return d, seen
        time.sleep(0.02)
    raise AssertionError(f"{name}: no {what} within {DEADLINE}s; saw {seen}")


def status_is(status):
    return lambda d: d["EndpointStatus"] == status


def endpoint(name, instances=4):
    for version, latency in (("v1", "20"), ("v2", "80")):
        sm.create_model(
            ModelName=f"{name}-{version}",
            ExecutionRoleArn="arn:aws:iam::123456789012:role/x",
            PrimaryContainer={"Image": "huggingface-pytorch-inference", "Environment": {"SAGEDECK_LATENCY_MS": latency}},
        )
    for config, version in (("c1", "v1"), ("c2", "v2")):
        sm.create_endpoint_config(
            EndpointConfigName=f"{name}-{config}",
            ProductionVariants=[{
                "VariantName": "AllTraffic", "ModelName": f"{name}-{version}", "InstanceType": "ml.m5.large",
                "InitialInstanceCount": instances, "InitialVariantWeight": 1.0,
            }],
        )
    sm.create_endpoint(EndpointName=name, EndpointConfigName=f"{name}-c1")


def blue_green(kind, wait_s, final_bake, size=None, alarms=()):
    routing = {"Type": kind, "WaitIntervalInSeconds": wait_s}
    if kind == "CANARY":
        routing["CanarySize"] = size
    if kind == "LINEAR":
        routing["LinearStepSize"] = size
    config = {"BlueGreenUpdatePolicy": {
        "TrafficRoutingConfiguration": routing,
        "TerminationWaitInSeconds": final_bake,
        "MaximumExecutionTimeoutInSeconds": 3600,
    }}
    if alarms:
        config["AutoRollbackConfiguration"] = {"Alarms": [{"AlarmName": a} for a in alarms]}
    return config


def deploy_to_success(name, config, expect_messages):
    sm.update_endpoint(EndpointName=name, EndpointConfigName=f"{name}-c2", DeploymentConfig=config)
    d, seen = wait(name, "InService", status_is("InService"))
    assert d["EndpointConfigName"] == f"{name}-c2", d
    assert "PendingDeploymentSummary" not in d and "FailureReason" not in d, d
    assert d["LastDeploymentConfig"] == config, d["LastDeploymentConfig"]
    messages = [m for _, m in seen]
    for expected in expect_messages:
        assert expected in messages, (expected, seen)
    return seen


names = ["py-canary", "py-linear", "py-aao", "py-roll", "py-alarm", "py-urf"]
for n in names:
    endpoint(n)
for n in names:
    wait(n, "InService", status_is("InService"))

seen = deploy_to_success(
    "py-canary",
    blue_green("CANARY", 300, 100, {"Type": "INSTANCE_COUNT", "Value": 1}),
    ["Launching 4 instance(s).",
     "Activating traffic on canary capacity of 1 instance(s).",
     "Baking for 300 seconds (WaitIntervalInSeconds) with traffic enabled on canary capacity of 1 instance(s).",
     "Baking for 100 seconds (TerminationWaitInSeconds) with traffic enabled on full capacity of 4 instance(s)."],
)
assert [s for s, _ in seen][:3] == ["Creating", "ActivatingTraffic", "Baking"], seen

deploy_to_success(
    "py-linear",
    blue_green("LINEAR", 100, 0, {"Type": "CAPACITY_PERCENT", "Value": 25}),
    ["Baking for 100 seconds (WaitIntervalInSeconds) with traffic enabled on 1 instance(s) of 4.",
     "Baking for 100 seconds (WaitIntervalInSeconds) with traffic enabled on 3 instance(s) of 4."],
)

seen = deploy_to_success("py-aao", blue_green("ALL_AT_ONCE", 0, 100), [
    "Activating traffic on full capacity of 4 instance(s).",
])
assert not any("canary" in m for _, m in seen), seen

seen = deploy_to_success("py-roll", {"RollingUpdatePolicy": {
    "MaximumBatchSize": {"Type": "CAPACITY_PERCENT", "Value": 50},
    "WaitIntervalInSeconds": 100,
    "RollbackMaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1},
}}, ["Launching 2 instance(s) (batch 1 of 2).", "Terminating 2 instance(s) of the old fleet (batch 2 of 2)."])

# A rollback: the alarm goes into ALARM during the canary's bake.
cw.put_metric_alarm(
    AlarmName="py-alarm-5xx", Namespace="AWS/SageMaker", MetricName="Invocation5XXErrors",
    Dimensions=[{"Name": "EndpointName", "Value": "py-alarm"}, {"Name": "VariantName", "Value": "AllTraffic"},
                {"Name": "EndpointConfigName", "Value": "py-alarm-c2"}],
    Statistic="Sum", Period=60, EvaluationPeriods=1, Threshold=1.0, ComparisonOperator="GreaterThanThreshold",
)
sm.update_endpoint(
    EndpointName="py-alarm", EndpointConfigName="py-alarm-c2",
    DeploymentConfig=blue_green("CANARY", 600, 0, {"Type": "CAPACITY_PERCENT", "Value": 25}, ["py-alarm-5xx"]),
)
wait("py-alarm", "the canary bake", lambda d: any(
    s["Status"] == "Baking" for s in d.get("PendingDeploymentSummary", {}).get("ProductionVariants", [{}])[0].get("VariantStatus", [])))
cw.set_alarm_state(AlarmName="py-alarm-5xx", StateValue="ALARM", StateReason="the canary errs")
wait("py-alarm", "RollingBack", status_is("RollingBack"))
d, _ = wait("py-alarm", "InService", status_is("InService"))
assert d["EndpointConfigName"] == "py-alarm-c1", d
assert "py-alarm-5xx" in d["FailureReason"], d["FailureReason"]

# A refusal: a canary of more than half the instances.
try:
    sm.update_endpoint(EndpointName="py-alarm", EndpointConfigName="py-alarm-c2",
                       DeploymentConfig=blue_green("CANARY", 60, 0, {"Type": "INSTANCE_COUNT", "Value": 3}))
    raise AssertionError("a canary of 3 of 4 instances was accepted")
except ClientError as e:
    assert e.response["Error"]["Code"] == "ValidationException", e.response
    assert "comes to 3 of the 4 instance(s)" in e.response["Error"]["Message"], e.response

# UpdateRollbackFailed (the Rust test set the fault on py-urf).
sm.update_endpoint(EndpointName="py-urf", EndpointConfigName="py-urf-c2",
                   DeploymentConfig=blue_green("CANARY", 600, 0, {"Type": "INSTANCE_COUNT", "Value": 1}))
d, _ = wait("py-urf", "UpdateRollbackFailed", status_is("UpdateRollbackFailed"))
assert d["FailureReason"].startswith("Both the deployment and auto-rollback failed"), d
print("boto3 guardrails ok")
