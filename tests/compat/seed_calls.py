#!/usr/bin/env python3
"""The seed article's boto3 calls, run against `sagedeck sandbox` with nothing changed but the
endpoint URL (plus static credentials and the region, so nothing from the machine leaks in).

Usage: seed_calls.py [ENDPOINT_URL]   (else $SAGEDECK_ENDPOINT_URL, else $AWS_ENDPOINT_URL)

Prints one line per check; exits non-zero on the first failure with a clear message.
"""

import datetime
import json
import os
import sys
import time
import traceback

import boto3
import botocore
from botocore.exceptions import ClientError

ENDPOINT_URL = (
    (sys.argv[1] if len(sys.argv) > 1 else None)
    or os.environ.get("SAGEDECK_ENDPOINT_URL")
    or os.environ.get("AWS_ENDPOINT_URL")
)
if not ENDPOINT_URL:
    sys.exit("usage: seed_calls.py ENDPOINT_URL (or set SAGEDECK_ENDPOINT_URL)")

REGION = "us-east-1"
DEADLINE_SECS = 30.0


class CheckFailed(Exception):
    pass


def client(service):
    """boto3.client as the seed calls it, pointed at the sandbox."""
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=ENDPOINT_URL,
        aws_access_key_id="AKIDSANDBOX",
        aws_secret_access_key="sandbox-secret",
    )


def ok(name, detail=""):
    print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)


def check(cond, what):
    if not cond:
        raise CheckFailed(what)


def poll_until(what, fn):
    """Calls fn until it returns a truthy value; fails after DEADLINE_SECS."""
    start = time.monotonic()
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() - start > DEADLINE_SECS:
            raise CheckFailed(f"timed out after {DEADLINE_SECS}s waiting for {what}")
        time.sleep(0.1)


sagemaker_runtime = client("sagemaker-runtime")
sagemaker = client("sagemaker")
autoscaling = client("application-autoscaling")
cloudwatch = client("cloudwatch")
s3 = client("s3")

ENDPOINT_NAME = "mcp-intent-classifier-prod"
MME_NAME = "mcp-multi-model-endpoint"


# --- The seed's MCP tool handler, verbatim -------------------------------------------------------
def classify_intent(user_input: str) -> dict:
    """MCP tool handler: classify user intent using SageMaker endpoint."""
    payload = {
        "inputs": user_input,
        "parameters": {
            "max_length": 128,
            "return_all_scores": True,
        },
    }

    try:
        response = sagemaker_runtime.invoke_endpoint(
            EndpointName=ENDPOINT_NAME,
            ContentType="application/json",
            Accept="application/json",
            Body=json.dumps(payload),
        )
        # Body is a StreamingBody — must read() to get bytes
        result_bytes = response["Body"].read()
        result = json.loads(result_bytes)
        return {"intent": result[0]["label"], "score": result[0]["score"]}

    except sagemaker_runtime.exceptions.ModelError as e:
        original_status = e.response.get("OriginalStatusCode", "unknown")
        original_message = e.response.get("OriginalMessage", str(e))
        raise RuntimeError(f"Model returned error {original_status}: {original_message}") from e

    except sagemaker_runtime.exceptions.InternalFailure as e:
        raise RuntimeError(f"SageMaker infrastructure error: {e}") from e

    except sagemaker_runtime.exceptions.ServiceUnavailable as e:
        raise RuntimeError(f"SageMaker endpoint unavailable: {e}") from e


def prewarm_model(target_model: str) -> None:
    try:
        sagemaker_runtime.invoke_endpoint(
            EndpointName="mcp-multi-model-endpoint",
            ContentType="application/json",
            TargetModel=target_model,
            Body=json.dumps({"inputs": "warmup"}),
        )
    except Exception:
        pass  # pre-warm failure is non-critical


def retry_flakes(fn):
    """The sandbox gives each variant a small simulated container error rate (HTTP 500 from the
    container, surfacing as ModelError). Such an answer is retried; anything else is a failure."""
    for attempt in range(5):
        try:
            return fn()
        except (RuntimeError, ClientError) as e:
            cause = e.__cause__ if isinstance(e, RuntimeError) else e
            model_error = isinstance(cause, sagemaker_runtime.exceptions.ModelError)
            if attempt == 4 or not (model_error and cause.response.get("OriginalStatusCode") == 500):
                raise
            print(f"note simulated container error, retrying: {e}", flush=True)


# --- Runtime --------------------------------------------------------------------------------------
def check_invoke():
    r = retry_flakes(lambda: classify_intent("cancel my subscription and refund me"))
    check(isinstance(r["intent"], str) and r["intent"], f"label is a non-empty string: {r}")
    check(isinstance(r["score"], float) and 0.0 <= r["score"] <= 1.0, f"score in [0, 1]: {r}")
    ok("invoke_endpoint classify_intent", f"{r}")


def check_model_error():
    try:
        sagemaker_runtime.invoke_endpoint(
            EndpointName=ENDPOINT_NAME,
            ContentType="text/csv",
            Accept="text/csv",
            Body="0.1,0.2,0.3",
        )
    except sagemaker_runtime.exceptions.ModelError as e:
        status = e.response.get("OriginalStatusCode")
        message = e.response.get("OriginalMessage")
        check(status == 415, f"OriginalStatusCode == 415, got {status!r} in {e.response}")
        check(isinstance(message, str) and message, f"OriginalMessage present in {e.response}")
        check(e.response["Error"]["Code"] == "ModelError", f"error code ModelError: {e.response}")
        check(e.response["ResponseMetadata"]["HTTPStatusCode"] == 424, f"HTTP 424: {e.response}")
        ok("ModelError path", f"{status} {message}")
        return
    raise CheckFailed("text/csv to the classifier did not raise ModelError")


def check_target_variant():
    payload = {"inputs": "what is my balance", "parameters": {"max_length": 128, "return_all_scores": True}}

    def call():
        return sagemaker_runtime.invoke_endpoint(
            EndpointName=ENDPOINT_NAME,
            ContentType="application/json",
            TargetVariant="Canary",  # override traffic routing
            Body=json.dumps(payload),
        )

    response = retry_flakes(call)
    body = response["Body"].read()
    variant = response.get("InvokedProductionVariant")
    check(variant == "Canary", f"InvokedProductionVariant == Canary, got {variant!r}")
    check(json.loads(body), "non-empty body from Canary")
    ok("invoke_endpoint TargetVariant=Canary", f"InvokedProductionVariant={variant}")


def check_mme():
    user_input = "reset my password"
    response = retry_flakes(
        lambda: sagemaker_runtime.invoke_endpoint(
            EndpointName="mcp-multi-model-endpoint",
            ContentType="application/json",
            Accept="application/json",
            TargetModel="tenant-acme-finetuned-v2.tar.gz",  # S3 key relative to ModelDataUrl prefix
            Body=json.dumps({"inputs": user_input}),
        )
    )
    result = json.loads(response["Body"].read())
    check(result, f"MME answer not empty: {result!r}")
    check(response.get("InvokedProductionVariant") == "AllTraffic", f"MME variant AllTraffic: {response}")
    ok("invoke_endpoint TargetModel=tenant-acme-finetuned-v2.tar.gz", json.dumps(result)[:80])

    # The seed: "Check EndpointConfigName, then DescribeEndpointConfig for ModelDataUrl prefix"
    response = sagemaker.describe_endpoint(EndpointName="mcp-multi-model-endpoint")
    config = sagemaker.describe_endpoint_config(EndpointConfigName=response["EndpointConfigName"])
    model = sagemaker.describe_model(ModelName=config["ProductionVariants"][0]["ModelName"])
    container = model["PrimaryContainer"]
    check(container.get("Mode") == "MultiModel", f"MME model Mode MultiModel: {container}")
    check(container.get("ModelDataUrl") == "s3://sagedeck-demo-models/tenants/", f"ModelDataUrl: {container}")
    ok("MME ModelDataUrl prefix", f"{response['EndpointConfigName']} -> {container['ModelDataUrl']}")

    for target in ["tenant-globex-finetuned-v1.tar.gz", "lang-de-intent.tar.gz", "no-such-model.tar.gz"]:
        prewarm_model(target)
    ok("prewarm_model x3 (incl. a missing model, swallowed)")

    try:
        sagemaker_runtime.invoke_endpoint(
            EndpointName=MME_NAME,
            ContentType="application/json",
            TargetModel="no-such-model.tar.gz",
            Body=json.dumps({"inputs": "x"}),
        )
    except ClientError as e:
        code = e.response["Error"]["Code"]
        check(code == "ValidationError", f"unknown TargetModel -> ValidationError, got {code}: {e.response}")
        check(e.response["ResponseMetadata"]["HTTPStatusCode"] == 400, f"HTTP 400: {e.response}")
        ok("unknown TargetModel", f"{code}: {e.response['Error']['Message'][:90]}")
        return
    raise CheckFailed("unknown TargetModel did not fail")


# --- Control plane --------------------------------------------------------------------------------
def variants_of(name):
    return {v["VariantName"]: v for v in sagemaker.describe_endpoint(EndpointName=name)["ProductionVariants"]}


def in_service(name):
    d = sagemaker.describe_endpoint(EndpointName=name)
    check(d["EndpointStatus"] not in ("Failed", "RollingBack"), f"{name} went {d['EndpointStatus']}: {d}")
    return d if d["EndpointStatus"] == "InService" else None


def check_endpoint_config():
    models = {m["ModelName"] for m in sagemaker.list_models(MaxResults=100)["Models"]}
    check({"mcp-intent-classifier-v3", "mcp-intent-classifier-v4"} <= models, f"seed models exist: {models}")
    ok("list_models", "mcp-intent-classifier-v3/v4 present")

    # The demo fleet already deploys the seed's config under the seed's name, so the literal call
    # must be refused as AWS refuses it; the same call is then made under a fresh name.
    config_name = "mcp-classifier-ab-config"
    for attempt in (0, 1):
        try:
            # Create endpoint config with two variants: 90% stable, 10% canary
            sagemaker.create_endpoint_config(
                EndpointConfigName=config_name,
                ProductionVariants=[
                    {
                        "VariantName": "Stable",
                        "ModelName": "mcp-intent-classifier-v3",
                        "InstanceType": "ml.m5.large",
                        "InitialInstanceCount": 2,
                        "InitialVariantWeight": 9,  # 90% traffic
                    },
                    {
                        "VariantName": "Canary",
                        "ModelName": "mcp-intent-classifier-v4",
                        "InstanceType": "ml.m5.large",
                        "InitialInstanceCount": 1,
                        "InitialVariantWeight": 1,  # 10% traffic
                    },
                ],
            )
            check(attempt == 1, "creating an existing endpoint config must fail")
        except ClientError as e:
            check(attempt == 0, f"create_endpoint_config failed: {e}")
            code, msg = e.response["Error"]["Code"], e.response["Error"]["Message"]
            check(code == "ValidationException" and "already existing" in msg, f"duplicate config: {e.response}")
            ok("create_endpoint_config duplicate refused", msg)
            config_name = "mcp-classifier-ab-config-compat"
    cfg = sagemaker.describe_endpoint_config(EndpointConfigName=config_name)
    weights = {v["VariantName"]: v["InitialVariantWeight"] for v in cfg["ProductionVariants"]}
    check(weights == {"Stable": 9.0, "Canary": 1.0}, f"config weights: {weights}")
    ok("create_endpoint_config", f"{config_name} {weights}")

    name = "mcp-classifier-ab-compat"
    arn = sagemaker.create_endpoint(EndpointName=name, EndpointConfigName=config_name)["EndpointArn"]
    check(arn.endswith(f":endpoint/{name}"), f"EndpointArn {arn}")
    first = sagemaker.describe_endpoint(EndpointName=name)["EndpointStatus"]
    d = poll_until(f"{name} InService", lambda: in_service(name))
    counts = {v["VariantName"]: v["CurrentInstanceCount"] for v in d["ProductionVariants"]}
    check(counts == {"Stable": 2, "Canary": 1}, f"instance counts: {counts}")
    ok("create_endpoint -> InService", f"{first} -> InService, {counts}")

    waiter = sagemaker.get_waiter("endpoint_in_service")
    waiter.wait(EndpointName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    ok("endpoint_in_service waiter")


def check_weights():
    # Shift traffic when canary looks healthy: update variant weights
    sagemaker.update_endpoint_weights_and_capacities(
        EndpointName=ENDPOINT_NAME,
        DesiredWeightsAndCapacities=[
            {"VariantName": "Stable", "DesiredWeight": 0},
            {"VariantName": "Canary", "DesiredWeight": 1},
        ],
    )
    status = sagemaker.describe_endpoint(EndpointName=ENDPOINT_NAME)["EndpointStatus"]
    check(status in ("Updating", "InService"), f"status after update: {status}")
    poll_until(f"{ENDPOINT_NAME} InService after the weight update", lambda: in_service(ENDPOINT_NAME))
    weights = {n: v["CurrentWeight"] for n, v in variants_of(ENDPOINT_NAME).items()}
    check(weights == {"Stable": 0.0, "Canary": 1.0}, f"CurrentWeight after update: {weights}")
    ok("update_endpoint_weights_and_capacities", f"{status} -> InService, CurrentWeight {weights}")

    def invoke_plain():
        body = json.dumps({"inputs": "hi"})
        return sagemaker_runtime.invoke_endpoint(EndpointName=ENDPOINT_NAME, ContentType="application/json", Body=body)

    routed = {retry_flakes(invoke_plain)["InvokedProductionVariant"] for _ in range(10)}
    check(routed == {"Canary"}, f"all traffic on Canary after the shift, got {routed}")
    ok("routing follows the new weights", f"{routed}")


# --- Application Auto Scaling ---------------------------------------------------------------------
def check_autoscaling():
    # The seed's resource id, endpoint/mcp-intent-classifier-prod/variant/AllTraffic, names a variant
    # the classifier does not have (it has Stable and Canary): refused, as AWS refuses it.
    try:
        autoscaling.register_scalable_target(
            ServiceNamespace="sagemaker",
            ResourceId=f"endpoint/{ENDPOINT_NAME}/variant/AllTraffic",
            ScalableDimension="sagemaker:variant:DesiredInstanceCount",
            MinCapacity=1,
            MaxCapacity=8,
        )
        raise CheckFailed("registering a missing variant succeeded")
    except autoscaling.exceptions.ValidationException as e:
        ok("register_scalable_target on a missing variant refused", e.response["Error"]["Message"])

    endpoint = MME_NAME  # the MME has an AllTraffic variant
    resource_id = f"endpoint/{endpoint}/variant/AllTraffic"

    # Register the endpoint variant as a scalable target
    autoscaling.register_scalable_target(
        ServiceNamespace="sagemaker",
        ResourceId=resource_id,
        ScalableDimension="sagemaker:variant:DesiredInstanceCount",
        MinCapacity=1,
        MaxCapacity=8,
    )
    targets = autoscaling.describe_scalable_targets(ServiceNamespace="sagemaker", ResourceIds=[resource_id])
    t = targets["ScalableTargets"]
    check(len(t) == 1 and (t[0]["MinCapacity"], t[0]["MaxCapacity"]) == (1, 8), f"scalable target: {t}")
    ok("register_scalable_target", resource_id)

    # Target tracking: maintain ≤70 invocations per instance per minute
    a = autoscaling.put_scaling_policy(
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
            "ScaleInCooldown": 300,  # 5 minutes — avoid thrashing
            "ScaleOutCooldown": 60,  # 1 minute — scale out fast for MCP bursts
        },
    )
    check(a["PolicyARN"].startswith("arn:aws:autoscaling:"), f"PolicyARN: {a}")
    ok("put_scaling_policy predefined", a["PolicyARN"])

    # For ML-latency-sensitive tools: scale on ModelLatency P99 instead
    # The seed's "Statistic": "p99" is refused with a ValidationException, as AWS refuses it.
    try:
        autoscaling.put_scaling_policy(
        PolicyName="mcp-endpoint-latency-policy",
        ServiceNamespace="sagemaker",
        ResourceId=resource_id,
        ScalableDimension="sagemaker:variant:DesiredInstanceCount",
        PolicyType="TargetTrackingScaling",
        TargetTrackingScalingPolicyConfiguration={
            "TargetValue": 500.0,  # target P99 latency ≤500ms
            "CustomizedMetricSpecification": {
                "MetricName": "ModelLatency",
                "Namespace": "/aws/sagemaker/Endpoints",
                "Dimensions": [
                    {"Name": "EndpointName", "Value": endpoint},
                    {"Name": "VariantName", "Value": "AllTraffic"},
                ],
                "Statistic": "p99",
                "Unit": "Microseconds",
            },
            "ScaleInCooldown": 300,
            "ScaleOutCooldown": 60,
        },
    )
        raise CheckFailed("the p99 Statistic was accepted")
    except autoscaling.exceptions.ValidationException as e:
        ok("put_scaling_policy customized p99 refused", e.response["Error"]["Message"])

    policies = autoscaling.describe_scaling_policies(ServiceNamespace="sagemaker", ResourceId=resource_id)
    by_name = {p["PolicyName"]: p for p in policies["ScalingPolicies"]}
    check(set(by_name) == {"mcp-endpoint-invocations-policy"}, f"only the accepted policy: {sorted(by_name)}")
    pre = by_name["mcp-endpoint-invocations-policy"]["TargetTrackingScalingPolicyConfiguration"]
    check(pre["TargetValue"] == 70.0 and pre["ScaleInCooldown"] == 300, f"predefined config: {pre}")
    ok("describe_scaling_policies", f"{sorted(by_name)}")


# --- CloudWatch -----------------------------------------------------------------------------------
def check_metrics():
    now = datetime.datetime.now(datetime.timezone.utc)
    dims = [{"Name": "EndpointName", "Value": ENDPOINT_NAME}, {"Name": "VariantName", "Value": "Stable"}]
    r = cloudwatch.get_metric_data(
        MetricDataQueries=[
            {
                "Id": "p99",
                "MetricStat": {
                    "Metric": {"Namespace": "AWS/SageMaker", "MetricName": "ModelLatency", "Dimensions": dims},
                    "Period": 300,
                    "Stat": "p99",
                },
            },
            {
                "Id": "invocations",
                "MetricStat": {
                    "Metric": {"Namespace": "AWS/SageMaker", "MetricName": "Invocations", "Dimensions": dims},
                    "Period": 300,
                    "Stat": "Sum",
                },
            },
        ],
        StartTime=now - datetime.timedelta(hours=3),
        EndTime=now,
    )
    results = {q["Id"]: q for q in r["MetricDataResults"]}
    p99, inv = results["p99"], results["invocations"]
    for q in (p99, inv):
        check(q["StatusCode"] == "Complete", f"StatusCode Complete: {q['Id']} {q['StatusCode']}")
        check(len(q["Timestamps"]) == len(q["Values"]) > 10, f"{q['Id']}: >10 points over 3 h")
        check(all(isinstance(t, datetime.datetime) for t in q["Timestamps"]), "Timestamps parse as datetimes")
        check(q["Timestamps"] == sorted(q["Timestamps"], reverse=True), f"{q['Id']}: TimestampDescending")
        check(min(q["Timestamps"]) >= now - datetime.timedelta(hours=3, minutes=5), "points within the window")
    check(all(v > 0 for v in p99["Values"]), "p99 ModelLatency values > 0 (microseconds)")
    ok("get_metric_data p99 ModelLatency", f"{len(p99['Values'])} points, latest {p99['Values'][0]:.0f} us")
    ok("get_metric_data Invocations Sum", f"{sum(inv['Values']):.0f} invocations in 3 h")

    metric = {"Namespace": "SageDeck/Compat", "MetricName": "ToolCalls", "Dimensions": [{"Name": "Tool", "Value": "x"}]}
    stamp = now.replace(second=0, microsecond=0) - datetime.timedelta(minutes=2)
    datum = {"MetricName": "ToolCalls", "Dimensions": metric["Dimensions"], "Timestamp": stamp, "Unit": "Count"}
    cloudwatch.put_metric_data(Namespace=metric["Namespace"], MetricData=[dict(datum, Value=v) for v in (3.0, 4.0)])
    r = cloudwatch.get_metric_data(
        MetricDataQueries=[{"Id": "calls", "MetricStat": {"Metric": metric, "Period": 60, "Stat": "Sum"}}],
        StartTime=stamp - datetime.timedelta(minutes=5),
        EndTime=now,
    )
    q = r["MetricDataResults"][0]
    check(q["Values"] == [7.0] and q["Timestamps"] == [stamp], f"put_metric_data round trip: {q}")
    listed = cloudwatch.list_metrics(Namespace="SageDeck/Compat")["Metrics"]
    check([m["MetricName"] for m in listed] == ["ToolCalls"], f"list_metrics: {listed}")
    ok("put_metric_data + get_metric_data round trip", f"{q['Values']} at {stamp.isoformat()}")


# --- S3 -------------------------------------------------------------------------------------------
def check_s3():
    r = s3.list_objects_v2(Bucket="sagedeck-demo-models", Prefix="tenants/")
    keys = [o["Key"] for o in r["Contents"]]
    check("tenants/tenant-acme-finetuned-v2.tar.gz" in keys, f"acme v2 listed: {keys[:5]}")
    check(all(k.startswith("tenants/") for k in keys), "only the prefix is listed")
    check(r["KeyCount"] == len(keys) and not r["IsTruncated"], f"KeyCount/IsTruncated: {r['KeyCount']}")
    check(all(o["Size"] > 0 and isinstance(o["LastModified"], datetime.datetime) for o in r["Contents"]), "sizes")
    page = s3.list_objects_v2(Bucket="sagedeck-demo-models", Prefix="tenants/", MaxKeys=5)
    check(page["IsTruncated"] and len(page["Contents"]) == 5, "MaxKeys=5 truncates")
    rest = s3.list_objects_v2(
        Bucket="sagedeck-demo-models", Prefix="tenants/", ContinuationToken=page["NextContinuationToken"]
    )
    check([o["Key"] for o in page["Contents"] + rest["Contents"]] == keys, "continuation resumes")
    ok("s3 list_objects_v2 tenants/", f"{len(keys)} keys, paginated")


CHECKS = [
    check_invoke,
    check_model_error,
    check_target_variant,
    check_mme,
    check_endpoint_config,
    check_weights,
    check_autoscaling,
    check_metrics,
    check_s3,
]


def main():
    print(f"boto3 {boto3.__version__} botocore {botocore.__version__} -> {ENDPOINT_URL}", flush=True)
    for fn in CHECKS:
        try:
            fn()
        except CheckFailed as e:
            print(f"FAIL {fn.__name__}: {e}", flush=True)
            return 1
        except Exception as e:  # a botocore error is a failure too, with its full text
            print(f"FAIL {fn.__name__}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
            return 1
    print(f"all {len(CHECKS)} check groups passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
