#!/usr/bin/env python3
"""CloudWatch alarms through boto3 (awsJson1_0) against the sandbox: a metric alarm that starts
INSUFFICIENT_DATA and fires on breaching data, a composite alarm, SetAlarmState, describe filters
and paginators, history, deletion and error codes.

Usage: alarm_calls.py ENDPOINT_URL

Prints one line per check and "all N alarm checks passed"; exits non-zero on the first failure.
"""

import datetime
import json
import sys

import boto3
import peer
from peer import error_code, ok, poll_until, require

ENDPOINT_URL = sys.argv[1]
NS = "Sandbox/Boto3Alarms"
DIMS = [{"Name": "EndpointName", "Value": "ep-b"}]

cw = boto3.client("cloudwatch", **peer.client_args(ENDPOINT_URL))


def metric_alarm(name):
    alarms = cw.describe_alarms(AlarmNames=[name])["MetricAlarms"]
    return alarms[0] if alarms else None



cw.put_metric_alarm(
    AlarmName="errors-high",
    AlarmDescription="5XX above 5 in 1 of 2 minutes",
    Namespace=NS,
    MetricName="Invocation5XXErrors",
    Dimensions=DIMS,
    Statistic="Sum",
    Period=60,
    EvaluationPeriods=2,
    DatapointsToAlarm=1,
    Threshold=5.0,
    ComparisonOperator="GreaterThanThreshold",
    TreatMissingData="missing",
)
fresh = metric_alarm("errors-high")
require(fresh is not None, "the new alarm is listed")
require(fresh["StateValue"] == "INSUFFICIENT_DATA", f"a new alarm starts INSUFFICIENT_DATA: {fresh}")
require(isinstance(fresh["StateUpdatedTimestamp"], datetime.datetime), "timestamps parse as datetimes")
require(fresh["Period"] == 60 and fresh["Threshold"] == 5.0 and fresh["Statistic"] == "Sum", f"config echoed: {fresh}")
ok("put_metric_alarm / describe_alarms", fresh["StateReason"])

cw.put_metric_data(
    Namespace=NS,
    MetricData=[{"MetricName": "Invocation5XXErrors", "Dimensions": DIMS, "Value": 9.0}],
)
fired = poll_until("errors-high in ALARM", lambda: (a := metric_alarm("errors-high")) and a["StateValue"] == "ALARM" and a)
require(
    fired["StateReason"].startswith("Threshold Crossed: 1 out of the last 2 datapoints [9.0 (")
    and "was greater than the threshold (5.0)" in fired["StateReason"],
    f"AWS-like reason: {fired['StateReason']}",
)
json.loads(fired["StateReasonData"])
ok("evaluation fires the alarm", fired["StateReason"])

cw.put_metric_alarm(
    AlarmName="latency-p99",
    Namespace=NS,
    MetricName="ModelLatency",
    Dimensions=DIMS,
    ExtendedStatistic="p99",
    Period=60,
    EvaluationPeriods=3,
    DatapointsToAlarm=2,
    Threshold=200000.0,
    ComparisonOperator="GreaterThanOrEqualToThreshold",
)
cw.put_composite_alarm(
    AlarmName="endpoint-unhealthy",
    AlarmRule='ALARM("errors-high") OR ALARM(latency-p99)',
)
composite = poll_until(
    "composite in ALARM",
    lambda: (c := cw.describe_alarms(AlarmNames=["endpoint-unhealthy"], AlarmTypes=["CompositeAlarm"])["CompositeAlarms"])
    and c[0]["StateValue"] == "ALARM"
    and c[0],
)
require("errors-high transitioned to ALARM" in composite["StateReason"], composite["StateReason"])
ok("put_composite_alarm follows its children", composite["StateReason"])

cw.set_alarm_state(AlarmName="latency-p99", StateValue="ALARM", StateReason="drill from boto3")
require(metric_alarm("latency-p99")["StateValue"] == "ALARM", "set_alarm_state sets the state")
alarming = cw.describe_alarms(StateValue="ALARM", AlarmTypes=["MetricAlarm", "CompositeAlarm"])
names = sorted(a["AlarmName"] for a in alarming["MetricAlarms"] + alarming["CompositeAlarms"])
require(names == ["endpoint-unhealthy", "errors-high", "latency-p99"], f"state filter: {names}")
ok("set_alarm_state / describe by state", ", ".join(names))

for i in range(5):
    cw.put_metric_alarm(
        AlarmName=f"paged-{i}",
        Namespace=NS,
        MetricName="Invocations",
        Statistic="SampleCount",
        Period=60,
        EvaluationPeriods=1,
        Threshold=1.0,
        ComparisonOperator="LessThanThreshold",
    )
pages = list(cw.get_paginator("describe_alarms").paginate(AlarmNamePrefix="paged-", PaginationConfig={"PageSize": 2}))
paged = [a["AlarmName"] for p in pages for a in p["MetricAlarms"]]
require(len(pages) == 3 and paged == [f"paged-{i}" for i in range(5)], f"paginator: {len(pages)} pages, {paged}")
ok("describe_alarms paginator", f"{len(pages)} pages")

history = cw.describe_alarm_history(AlarmName="errors-high", HistoryItemType="StateUpdate")["AlarmHistoryItems"]
fired_items = [h for h in history if h["HistorySummary"] == "Alarm updated from INSUFFICIENT_DATA to ALARM"]
require(fired_items, f"history: {history}")
require(json.loads(fired_items[0]["HistoryData"])["newState"]["stateValue"] == "ALARM", "history data is JSON")
require(isinstance(fired_items[0]["Timestamp"], datetime.datetime), "history timestamps parse")
ok("describe_alarm_history", fired_items[0]["HistorySummary"])

cw.delete_alarms(AlarmNames=["paged-0", "paged-1", "never-existed"])
left = [a["AlarmName"] for a in cw.describe_alarms(AlarmNamePrefix="paged-")["MetricAlarms"]]
require(left == ["paged-2", "paged-3", "paged-4"], f"delete_alarms: {left}")
ok("delete_alarms skips unknown names")

code = error_code(lambda: cw.set_alarm_state(AlarmName="ghost", StateValue="OK", StateReason="x"))
require(code == "ResourceNotFound", f"unknown alarm: {code}")
code = error_code(
    lambda: cw.put_metric_alarm(
        AlarmName="bad",
        Namespace=NS,
        MetricName="X",
        Statistic="Average",
        Period=60,
        EvaluationPeriods=2,
        DatapointsToAlarm=3,
        Threshold=1.0,
        ComparisonOperator="GreaterThanThreshold",
    )
)
require(code == "InvalidParameterValue", f"DatapointsToAlarm > EvaluationPeriods: {code}")
code = error_code(lambda: cw.put_composite_alarm(AlarmName="broken", AlarmRule="ALARM(errors-high) AND"))
require(code == "InvalidParameterValue", f"bad rule: {code}")
ok("errors carry CloudWatch codes")

print(f"all {peer.checks} alarm checks passed", flush=True)
