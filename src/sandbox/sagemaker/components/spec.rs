//! A component's `Specification`: read into its record (model or own container, base component,
//! compute reservation), its runtime simulation built, and shown back as
//! DescribeInferenceComponent's `InferenceComponentSpecificationSummary`.
//!
//! `Specifications` (one per instance type) instead of one `Specification`: the one for the
//! variant's instance type is the component's, all are shown back. An `AcceleratorPartitionType`
//! (a GPU partition profile such as `mig-3g.40gb`) reserves that share of one accelerator (`Ng`
//! of seven); `DataCacheConfig` is kept and shown back.
//!
//! The sandbox's refusals (texts UNVERIFIED against AWS): a specification with neither ModelName
//! nor Container nor BaseInferenceComponentName; ComputeResourceRequirements missing on a
//! component that is not an adapter, or given on an adapter; both `Specification` and
//! `Specifications`; `Specifications` without an InstanceType each, with one twice, or with none
//! for the variant's instance type.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::world::components::{ComponentSpec, Resources};
use crate::sandbox::world::containers::ContainerKind;
use crate::sandbox::world::hash::fxhash;
use crate::sandbox::world::resources::Container;
use crate::sandbox::world::sandbox::Sandbox;
use crate::sandbox::world::state::World;
use crate::sandbox::world::variant::VariantSim;

/// Reads the `Specification` or `Specifications` of a Create/UpdateInferenceComponent request
/// for a variant of `instance_type` (None when neither is given).
pub fn read_spec_member(
    sb: &Sandbox,
    world: &World,
    doc: &Value,
    instance_type: &str,
) -> Result<Option<ComponentSpec>, ApiError> {
    let many = doc.get("Specifications").and_then(Value::as_array);
    let Some(many) = many else {
        return doc
            .get("Specification")
            .map(|raw| read_spec(sb, world, raw))
            .transpose();
    };
    if doc.get("Specification").is_some() {
        return Err(ApiError::validation(
            "Give either Specification or Specifications (one per instance type), not both.",
        ));
    }
    let mut types: Vec<&str> = Vec::new();
    for s in many {
        let Some(t) = s.get("InstanceType").and_then(Value::as_str) else {
            return Err(ApiError::validation(
                "Each of Specifications needs an InstanceType (one specification per instance type).",
            ));
        };
        if types.contains(&t) {
            return Err(ApiError::validation(format!(
                "Specifications name instance type {t} more than once."
            )));
        }
        types.push(t);
    }
    let Some(chosen) = many
        .iter()
        .find(|s| s.get("InstanceType").and_then(Value::as_str) == Some(instance_type))
    else {
        return Err(ApiError::validation(format!(
            "None of Specifications is for instance type {instance_type} of the variant (they are for {}).",
            types.join(", ")
        )));
    };
    let mut spec = read_spec(sb, world, chosen)?;
    spec.specifications = many.clone();
    Ok(Some(spec))
}

/// Reads a Specification against the world's models.
pub fn read_spec(sb: &Sandbox, world: &World, raw: &Value) -> Result<ComponentSpec, ApiError> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let model_name = text(raw.get("ModelName"));
    let base = text(raw.get("BaseInferenceComponentName"));
    let container = raw.get("Container");
    if model_name.is_none() && container.is_none() && base.is_none() {
        return Err(ApiError::validation(
            "The Specification needs a ModelName, a Container or a BaseInferenceComponentName.",
        ));
    }
    let compute = raw.get("ComputeResourceRequirements");
    match (&base, compute) {
        (None, None) => {
            return Err(ApiError::validation(
                "The Specification needs ComputeResourceRequirements (only an adapter, with a BaseInferenceComponentName, has none of its own).",
            ));
        }
        (Some(b), Some(_)) => {
            return Err(ApiError::validation(format!(
                "An adapter inference component uses the compute resources of its base component {b}: remove ComputeResourceRequirements."
            )));
        }
        _ => {}
    }
    let model = match &model_name {
        Some(m) => Some(
            world
                .models
                .get(m)
                .ok_or_else(|| ApiError::validation(format!("Could not find model \"{}\".", sb.arn("model", m))))?,
        ),
        None => None,
    };
    let mut environment = model.map(|m| m.container.environment.clone()).unwrap_or_default();
    if let Some(env) = container.and_then(|c| c.get("Environment")).and_then(Value::as_object) {
        for (k, v) in env {
            environment.insert(k.clone(), v.as_str().unwrap_or_default().to_string());
        }
    }
    let image = text(container.and_then(|c| c.get("Image")))
        .or_else(|| model.map(|m| m.container.image.clone()))
        .unwrap_or_default();
    Ok(ComponentSpec {
        raw: raw.clone(),
        model_name,
        base,
        image,
        environment,
        reservation: compute.map(reservation_of),
        specifications: Vec::new(),
    })
}

fn reservation_of(compute: &Value) -> Resources {
    let num = |k: &str| compute.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let partition = compute.get("AcceleratorPartitionType").and_then(Value::as_str);
    Resources {
        cpus: num("NumberOfCpuCoresRequired"),
        accelerators: partition.map_or_else(|| num("NumberOfAcceleratorDevicesRequired"), partition_share),
        memory_mb: num("MinMemoryRequiredInMb"),
    }
}

/// The share of one accelerator a partition profile takes: `mig-3g.40gb` (or `3g.40gb`) is
/// three of seven compute slices; a profile read otherwise takes a whole one.
pub fn partition_share(profile: &str) -> f64 {
    let slices = profile
        .trim_start_matches("mig-")
        .split_once('g')
        .and_then(|(n, _)| n.parse::<f64>().ok())
        .filter(|n| (1.0..=7.0).contains(n));
    slices.map_or(1.0, |n| n / 7.0)
}

/// The container kind a specification runs (an adapter runs its base's).
pub fn kind_of(spec: &ComponentSpec) -> ContainerKind {
    ContainerKind::of(&Container {
        image: spec.image.clone(),
        model_data_url: None,
        mode: "SingleModel".into(),
        environment: spec.environment.clone(),
        hostname: None,
    })
}

/// The runtime simulation of a component running `spec` with `copies` copies.
pub fn sim_of(sb: &Sandbox, endpoint: &str, component: &str, spec: &ComponentSpec, copies: i32) -> Arc<VariantSim> {
    Arc::new(VariantSim::for_component(
        (&sb.config, &sb.metrics),
        endpoint,
        component,
        kind_of(spec),
        &spec.environment,
        copies.max(1) as usize,
    ))
}

/// The InferenceComponentSpecificationSummary of a specification: as sent, the container's
/// Image shown as its DeployedImage.
pub fn spec_summary(spec: &ComponentSpec, resolved_at: f64) -> Value {
    summary_of(&spec.raw, resolved_at)
}

/// The summary of one specification as sent.
pub fn summary_of(raw: &Value, resolved_at: f64) -> Value {
    let mut out = raw.clone();
    if let Some(c) = out.get_mut("Container").and_then(Value::as_object_mut)
        && let Some(image) = c.remove("Image")
    {
        let image = image.as_str().unwrap_or_default().to_string();
        c.insert("DeployedImage".into(), deployed_image(&image, resolved_at));
    }
    out
}

/// A DeployedImage: the image as given, resolved to a digest.
fn deployed_image(image: &str, at: f64) -> Value {
    json!({
        "SpecifiedImage": image,
        "ResolvedImage": format!("{}@sha256:{:064x}", image.split(':').next().unwrap_or(""), fxhash(image)),
        "ResolutionTime": at,
    })
}

/// How a reservation reads in a failure reason.
pub fn describe_resources(r: &Resources) -> String {
    format!(
        "{} CPU cores, {} accelerator devices, {} MB of memory",
        r.cpus, r.accelerators, r.memory_mb
    )
}
