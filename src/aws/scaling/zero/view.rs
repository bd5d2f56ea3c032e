//! The Scaling view's part for inference components: each component of an endpoint with its
//! autoscaling (`read.rs`), the doctor's report and its recent scaling activities.

use aws_sdk_applicationautoscaling::types::ServiceNamespace;

use crate::aws::config::Fleet;
use crate::aws::endpoints::autoscaling::ActivityInfo;
use crate::aws::error::AwsError;
use crate::aws::scaling::scope::{COMPONENT_DIMENSION, component_resource_id};
use crate::aws::scaling::zero::doctor::{PieceReport, doctor};
use crate::aws::scaling::zero::read::ComponentScaling;

/// A component's part of the Scaling view: its autoscaling, the doctor's word on it and its
/// recent scaling activities (newest first).
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentView {
    /// Its autoscaling as read.
    pub scaling: ComponentScaling,
    /// The scale-to-zero doctor's report.
    pub doctor: Vec<PieceReport>,
    /// Recent scaling activities.
    pub activities: Vec<ActivityInfo>,
}

impl Fleet {
    /// The most recent `limit` scaling activities of `component`, newest first.
    pub async fn component_activities(&self, component: &str, limit: i32) -> Result<Vec<ActivityInfo>, AwsError> {
        let page = self
            .autoscaling
            .describe_scaling_activities()
            .service_namespace(ServiceNamespace::Sagemaker)
            .resource_id(component_resource_id(component))
            .scalable_dimension(COMPONENT_DIMENSION.into())
            .max_results(limit)
            .send()
            .await
            .map_err(AwsError::from_sdk)?;
        let mut out: Vec<ActivityInfo> = page
            .scaling_activities()
            .iter()
            .map(|a| ActivityInfo {
                resource_id: a.resource_id().to_string(),
                description: a.description().to_string(),
                cause: a.cause().to_string(),
                status: a.status_code().as_str().to_string(),
                start: a.start_time().as_secs_f64(),
                end: a.end_time().map(|t| t.as_secs_f64()),
            })
            .collect();
        out.sort_by(|a, b| b.start.total_cmp(&a.start));
        Ok(out)
    }

    /// Every component of `endpoint` as the Scaling view shows it.
    pub async fn component_views(&self, endpoint: &str, limit: i32) -> Result<Vec<ComponentView>, AwsError> {
        let mut out = Vec::new();
        for name in self.component_names(endpoint).await? {
            let scaling = self.component_scaling(endpoint, &name).await?;
            out.push(ComponentView {
                doctor: doctor(&scaling),
                activities: self.component_activities(&name, limit).await?,
                scaling,
            });
        }
        Ok(out)
    }
}
