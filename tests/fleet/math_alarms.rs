//! `sagedeck alarms ENDPOINT` lists metric-math alarms: the endpoint (and variant) they watch is
//! found in their queries' metric dimensions, and the expression is shown with its metrics; a
//! math alarm over another endpoint is not listed.

use aws_sdk_cloudwatch::types::{ComparisonOperator, Dimension, Metric, MetricDataQuery, MetricStat};

use crate::common::{run_cli, sandbox, sdk_config};

/// `e1 = 100 * errors / invocations` over `endpoint`'s AllTraffic.
fn error_rate(endpoint: &str) -> Vec<MetricDataQuery> {
    let sum = |id: &str, metric: &str| {
        let m = Metric::builder()
            .namespace("AWS/SageMaker")
            .metric_name(metric)
            .dimensions(Dimension::builder().name("EndpointName").value(endpoint).build())
            .dimensions(Dimension::builder().name("VariantName").value("AllTraffic").build())
            .build();
        let stat = MetricStat::builder().metric(m).period(60).stat("Sum").build();
        MetricDataQuery::builder()
            .id(id)
            .metric_stat(stat)
            .return_data(false)
            .build()
    };
    vec![
        sum("errors", "Invocation5XXErrors"),
        sum("invocations", "Invocations"),
        MetricDataQuery::builder()
            .id("rate")
            .expression("100 * errors / invocations")
            .return_data(true)
            .build(),
    ]
}

#[tokio::test]
async fn alarms_lists_a_metric_math_alarm_by_the_dimensions_of_its_metrics() {
    let sb = sandbox().await;
    let cw = aws_sdk_cloudwatch::Client::new(&sdk_config(&sb).await);
    for (name, endpoint) in [("math-ep-5xx", "math-ep"), ("other-ep-5xx", "other-ep")] {
        cw.put_metric_alarm()
            .alarm_name(name)
            .set_metrics(Some(error_rate(endpoint)))
            .evaluation_periods(1)
            .threshold(1.0)
            .comparison_operator(ComparisonOperator::GreaterThanThreshold)
            .send()
            .await
            .unwrap();
    }
    let r = run_cli(&sb, &["alarms", "math-ep", "--json"]).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = r.json();
    let alarms = out["alarms"].as_array().expect("alarms");
    let names: Vec<&str> = alarms.iter().filter_map(|a| a["name"].as_str()).collect();
    assert_eq!(names, vec!["math-ep-5xx"], "{out}");
    assert_eq!(
        alarms[0]["watches"],
        "rate = 100 * errors / invocations (errors = AWS/SageMaker/Invocation5XXErrors Sum (EndpointName=math-ep,VariantName=AllTraffic), invocations = AWS/SageMaker/Invocations Sum (EndpointName=math-ep,VariantName=AllTraffic)) GreaterThanThreshold 1"
    );
    let table = run_cli(&sb, &["alarms", "math-ep"]).await;
    assert!(
        table.stdout.contains("rate = 100 * errors / invocations"),
        "{}",
        table.stdout
    );
}
