//! Every endpoint shape in the sandbox: serverless variants (concurrency, cold starts,
//! provisioned concurrency and its autoscaling), asynchronous endpoints (their queue and S3
//! objects), shadow variants, with the Rust SDK and with boto3.

mod asynchronous;
pub(crate) mod boto3;
mod demo;
mod serverless;
mod shadow;

use std::time::Duration;

use aws_sdk_cloudwatch::types::{Dimension, Metric, MetricDataQuery, MetricStat};

use crate::common::poll_until;

/// A model whose container answers after `latency_ms` (simulated).
pub async fn create_model(sm: &aws_sdk_sagemaker::Client, name: &str, latency_ms: u32) {
    sm.create_model()
        .model_name(name)
        .primary_container(
            aws_sdk_sagemaker::types::ContainerDefinition::builder()
                .image("683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1")
                .environment("SAGEDECK_LATENCY_MS", latency_ms.to_string())
                .environment("SAGEDECK_LATENCY_SIGMA", "0.01")
                .build(),
        )
        .execution_role_arn("arn:aws:iam::123456789012:role/SageMakerExecutionRole")
        .send()
        .await
        .expect("create model");
}

/// A metric's statistic (`Sum`, `Maximum`, `SampleCount`, ...) over the last ten minutes through
/// CloudWatch GetMetricData, once it has data (the sum of the minutes, or their maximum).
pub async fn metric(
    cw: &aws_sdk_cloudwatch::Client,
    (endpoint, variant): (&str, Option<&str>),
    name: &str,
    stat: &str,
) -> f64 {
    poll_until(&format!("{name} to have data"), Duration::from_secs(10), || async {
        let mut dims = vec![Dimension::builder().name("EndpointName").value(endpoint).build()];
        if let Some(v) = variant {
            dims.push(Dimension::builder().name("VariantName").value(v).build());
        }
        let m = Metric::builder()
            .namespace("AWS/SageMaker")
            .metric_name(name)
            .set_dimensions(Some(dims))
            .build();
        let query = MetricDataQuery::builder()
            .id("m")
            .metric_stat(MetricStat::builder().metric(m).period(60).stat(stat).build())
            .build();
        let now = std::time::SystemTime::now();
        let out = cw
            .get_metric_data()
            .metric_data_queries(query)
            .start_time((now - Duration::from_secs(600)).into())
            .end_time((now + Duration::from_secs(60)).into())
            .send()
            .await
            .expect("GetMetricData");
        let values = out.metric_data_results().first()?.values().to_vec();
        if values.is_empty() {
            return None;
        }
        Some(if stat == "Maximum" {
            values.iter().copied().fold(f64::MIN, f64::max)
        } else {
            values.iter().sum()
        })
    })
    .await
}
