#!/usr/bin/env python3
"""Metric-math alarms through boto3 (awsJson1_0) against the sandbox: an error ratio
`100*(m2/m1)` over two MetricStat queries is accepted, echoed by DescribeAlarms, goes to ALARM
when errors over traffic breach, and malformed Metrics are refused.

Usage: math_alarm_calls.py ENDPOINT_URL

Prints one line per check and "all N math alarm checks passed"; exits non-zero on the first failure.
"""

import datetime
import sys

import boto3
import peer
from peer import error_code, ok, poll_until, require

ENDPOINT_URL = sys.argv[1]
NS = "Sandbox/Boto3MathAlarms"
DIMS = [{"Name": "EndpointName", "Value": "ep-b"}]

cw = boto3.client("cloudwatch", **peer.client_args(ENDPOINT_URL))


def metric_alarm(name):
    alarms = cw.describe_alarms(AlarmNames=[name])["MetricAlarms"]
    return alarms[0] if alarms else None



def stat_query(qid, metric, period=60):
    return {
        "Id": qid,
        "MetricStat": {
            "Metric": {"Namespace": NS, "MetricName": metric, "Dimensions": DIMS},
            "Period": period,
            "Stat": "Sum",
        },
        "ReturnData": False,
    }


def put_alarm(name, metrics, **extra):
    cw.put_metric_alarm(
        AlarmName=name,
        EvaluationPeriods=2,
        DatapointsToAlarm=1,
        Threshold=5.0,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
        Metrics=metrics,
        **extra,
    )


RATIO = [
    stat_query("m1", "Invocations"),
    stat_query("m2", "Invocation5XXErrors"),
    {"Id": "e1", "Expression": "100*(m2/m1)", "Label": "error ratio", "ReturnData": True},
]
put_alarm("boto3-error-ratio", RATIO)
alarm = metric_alarm("boto3-error-ratio")
require(alarm is not None and alarm["StateValue"] == "INSUFFICIENT_DATA", f"new alarm: {alarm}")
require([m["Id"] for m in alarm["Metrics"]] == ["m1", "m2", "e1"], f"echoed ids: {alarm['Metrics']}")
require(alarm["Metrics"][2]["Expression"] == "100*(m2/m1)", "echoed expression")
require(alarm["Metrics"][0]["MetricStat"]["Metric"]["MetricName"] == "Invocations", "echoed metric")
require("MetricName" not in alarm and "Period" not in alarm, f"no single metric: {alarm}")
ok("put and describe a metric-math alarm")

now = datetime.datetime.now(datetime.timezone.utc)
data = [
    {"MetricName": "Invocations", "Dimensions": DIMS, "Timestamp": now, "Value": 40.0},
    {"MetricName": "Invocation5XXErrors", "Dimensions": DIMS, "Timestamp": now, "Value": 4.0},
]
cw.put_metric_data(Namespace=NS, MetricData=data)
fired = poll_until(
    "the ratio alarm in ALARM",
    lambda: (a := metric_alarm("boto3-error-ratio")) and a["StateValue"] == "ALARM" and a,
)
require("[10.0 (" in fired["StateReason"], f"reason: {fired['StateReason']}")
require(
    "was greater than or equal to the threshold (5.0)" in fired["StateReason"],
    f"reason: {fired['StateReason']}",
)
ok("ALARM on 4 errors over 40 invocations", fired["StateReason"])

for what, metrics, extra, code in [
    ("no ReturnData true", [dict(RATIO[0]), dict(RATIO[1])], {}, "InvalidParameterValue"),
    ("unknown id", RATIO[:2] + [{"Id": "e1", "Expression": "m3 / m1"}], {}, "InvalidParameterValue"),
    ("MetricStat and Expression", [dict(RATIO[0], Expression="m1")], {}, "InvalidParameterCombination"),
    ("Metrics with Period", RATIO, {"Period": 60}, "InvalidParameterCombination"),
]:
    got = error_code(lambda: put_alarm("boto3-bad-math", metrics, **extra))
    require(got == code, f"{what}: {got}")
    ok(f"refused: {what}", got)
require(metric_alarm("boto3-bad-math") is None, "nothing refused is stored")

print(f"all {peer.checks} math alarm checks passed", flush=True)
