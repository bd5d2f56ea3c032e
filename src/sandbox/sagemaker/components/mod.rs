//! Inference components on the control plane: CreateInferenceComponent,
//! DescribeInferenceComponent, ListInferenceComponents and DeleteInferenceComponent here;
//! UpdateInferenceComponent and UpdateInferenceComponentRuntimeConfig in `update.rs`; the
//! members' constraints in `constraints.rs`; the specification in `spec.rs`; the IC endpoint's
//! variants in `hosts.rs`. The records and their lifecycles are the world's
//! (`world/components/`).
//!
//! The sandbox's refusals (texts UNVERIFIED against AWS): a component on an endpoint whose
//! variants serve a model; CopyCount 0 at create; deleting a component that is Creating, Updating
//! or Deleting, or a base component that adapters still ride on.

pub mod constraints;
pub mod hosts;
pub mod spec;
pub mod update;

use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::endpoints::not_found as endpoint_not_found;
use crate::sandbox::sagemaker::params::{ListParams, check_name, page, passes};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::components::{ComponentSpec, ComponentStatus, Components, Host, InferenceComponent};
use crate::sandbox::world::sandbox::Sandbox;

use spec::{describe_resources, read_spec, read_spec_member, sim_of, spec_summary, summary_of};

/// `Could not find inference component "ARN".`
pub fn not_found(sb: &Sandbox, name: &str) -> ApiError {
    ApiError::validation(format!(
        "Could not find inference component \"{}\".",
        sb.arn("inference-component", name)
    ))
}

/// CreateInferenceComponent: Creating now; InService once its copies are placed and started
/// (Failed when one copy's reservation does not fit the variant's instance type).
pub fn create(sb: &Sandbox, doc: &Value) -> Result<Value, ApiError> {
    let name = str_member(doc, "InferenceComponentName");
    let endpoint = str_member(doc, "EndpointName");
    let variant = str_member(doc, "VariantName");
    check_name("InferenceComponentName", &name)?;
    let now = now_epoch();
    let arn = sb.arn("inference-component", &name);
    let mut world = sb.world.write();
    if world.components.items.contains_key(&name) {
        return Err(ApiError::validation(format!(
            "Cannot create already existing inference component \"{arn}\"."
        )));
    }
    let ep = world
        .endpoints
        .get(&endpoint)
        .ok_or_else(|| endpoint_not_found(sb, &endpoint))?;
    let endpoint_arn = ep.arn.clone();
    let Some(host) = world
        .components
        .hosts
        .get(&(endpoint.clone(), variant.clone()))
        .cloned()
    else {
        return Err(match ep.variant(&variant) {
            None => ApiError::validation(format!(
                "Could not find variant \"{variant}\" of endpoint \"{endpoint_arn}\"."
            )),
            Some(_) => ApiError::validation(format!(
                "Endpoint \"{endpoint_arn}\" does not host inference components: its variants serve a model. Create the endpoint from a configuration with an ExecutionRoleArn and variants without a ModelName."
            )),
        });
    };
    let spec = match read_spec_member(sb, &world, doc, &host.instance_type)? {
        Some(spec) => spec,
        None => read_spec(sb, &world, &Value::Null)?,
    };
    let copies = doc.pointer("/RuntimeConfig/CopyCount").and_then(Value::as_i64);
    let (desired, sim_spec) = match &spec.base {
        Some(base) => (0, adapter_base(&world.components, base, &endpoint, &variant, sb)?),
        None => (copies_at_create(copies)?, spec.clone()),
    };
    let copy_seconds = sb.config.timing.update.as_secs_f64();
    let fail_reason = fit_failure(&name, &spec, &host);
    let deadline = match &fail_reason {
        Some(_) => now + copy_seconds,
        None => now + 4.0 * (copy_seconds + host.instance_seconds),
    };
    let sim = sim_of(sb, &endpoint, &name, &sim_spec, desired);
    world.components.items.insert(
        name.clone(),
        InferenceComponent {
            name,
            arn: arn.clone(),
            endpoint,
            endpoint_arn,
            variant,
            spec,
            status: ComponentStatus::Creating,
            failure_reason: None,
            creation_time: now,
            last_modified: now,
            desired_copies: desired,
            current_copies: 0,
            copies_ready_at: None,
            copy_seconds,
            deadline: Some(deadline),
            fail_reason,
            rollout: None,
            last_deployment_config: None,
            sim,
        },
    );
    world.components.advance(now);
    Ok(json!({ "InferenceComponentArn": arn }))
}

/// The copies a component that is not an adapter starts with: RuntimeConfig.CopyCount, at
/// least 1.
fn copies_at_create(copies: Option<i64>) -> Result<i32, ApiError> {
    match copies {
        Some(n) if n >= 1 => Ok(n.min(i32::MAX as i64) as i32),
        Some(_) => Err(ApiError::validation(
            "CopyCount must be greater than 0 when creating an inference component: zero copies are reached by scaling in.",
        )),
        None => Err(ApiError::validation(
            "RuntimeConfig with a CopyCount is required for an inference component that is not an adapter.",
        )),
    }
}

/// Why a component cannot run on its variant's instances: one copy's reservation exceeds what
/// one instance of the type offers.
fn fit_failure(name: &str, spec: &ComponentSpec, host: &Host) -> Option<String> {
    spec.reservation.filter(|r| !host.capacity.holds(r)).map(|r| {
        format!(
            "The compute resource requirements of inference component {name} ({}) exceed what one {} instance offers ({}).",
            describe_resources(&r),
            host.instance_type,
            describe_resources(&host.capacity)
        )
    })
}

/// The base of an adapter: a component of the same endpoint and variant that is not itself an
/// adapter. Returns its specification (the adapter runs its base's container).
fn adapter_base(
    components: &Components,
    base: &str,
    endpoint: &str,
    variant: &str,
    sb: &Sandbox,
) -> Result<ComponentSpec, ApiError> {
    let b = components.items.get(base).ok_or_else(|| not_found(sb, base))?;
    if b.endpoint != endpoint || b.variant != variant || b.spec.base.is_some() {
        return Err(ApiError::validation(format!(
            "Base inference component {base} must be a component (not an adapter) of endpoint {endpoint}, variant {variant}."
        )));
    }
    Ok(b.spec.clone())
}

/// A string member (the constraints have already refused a missing required one).
fn str_member(doc: &Value, key: &str) -> String {
    doc.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The DescribeInferenceComponent document of a component.
pub fn component_json(components: &Components, ic: &InferenceComponent) -> Value {
    let (desired, current) = components
        .copies(&ic.name)
        .unwrap_or((ic.desired_copies, ic.current_copies));
    let placement: Vec<Value> = components
        .placement(ic)
        .into_iter()
        .map(|(t, n)| json!({"InstanceType": t, "CurrentCopyCount": n}))
        .collect();
    let mut runtime = json!({"DesiredCopyCount": desired, "CurrentCopyCount": current});
    if !placement.is_empty() {
        runtime["PlacementStatus"] = Value::Array(placement);
    }
    let mut out = json!({
        "InferenceComponentName": ic.name,
        "InferenceComponentArn": ic.arn,
        "EndpointName": ic.endpoint,
        "EndpointArn": ic.endpoint_arn,
        "VariantName": ic.variant,
        "Specification": spec_summary(&ic.spec, ic.creation_time),
        "RuntimeConfig": runtime,
        "CreationTime": ic.creation_time,
        "LastModifiedTime": ic.last_modified,
        "InferenceComponentStatus": ic.status.as_str(),
    });
    if !ic.spec.specifications.is_empty() {
        let all = ic.spec.specifications.iter().map(|s| summary_of(s, ic.creation_time));
        out["Specifications"] = Value::Array(all.collect());
        if let Some(o) = out.as_object_mut() {
            o.remove("Specification");
        }
    }
    if let Some(r) = &ic.failure_reason {
        out["FailureReason"] = r.clone().into();
    }
    if let Some(d) = &ic.last_deployment_config {
        out["LastDeploymentConfig"] = d.clone();
    }
    out
}

/// DescribeInferenceComponent.
pub fn describe(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let c = &world.components;
    c.items
        .get(name)
        .map(|ic| component_json(c, ic))
        .ok_or_else(|| not_found(sb, name))
}

/// ListInferenceComponents: the list filters, EndpointNameEquals, VariantNameEquals and
/// StatusEquals; sorted by Name, CreationTime (default, descending) or Status; paged.
pub fn list(sb: &Sandbox, doc: &Value) -> Result<Value, ApiError> {
    let params: ListParams = serde_json::from_value(doc.clone())
        .map_err(|e| ApiError::validation(format!("Invalid ListInferenceComponents request: {e}")))?;
    let equals = |k: &str| doc.get(k).and_then(Value::as_str);
    let world = sb.world.read();
    let items: Vec<&InferenceComponent> = world
        .components
        .items
        .values()
        .filter(|c| passes(&params, &c.name, c.creation_time, c.last_modified))
        .filter(|c| equals("EndpointNameEquals").is_none_or(|e| c.endpoint == e))
        .filter(|c| equals("VariantNameEquals").is_none_or(|v| c.variant == v))
        .filter(|c| equals("StatusEquals").is_none_or(|s| c.status.as_str() == s))
        .collect();
    page(
        &params,
        items,
        "InferenceComponents",
        |c, by| match by {
            "Status" => (c.status.as_str().to_string(), c.creation_time),
            _ => (c.name.clone(), c.creation_time),
        },
        |c| {
            json!({
                "InferenceComponentName": c.name, "InferenceComponentArn": c.arn,
                "EndpointName": c.endpoint, "EndpointArn": c.endpoint_arn, "VariantName": c.variant,
                "InferenceComponentStatus": c.status.as_str(),
                "CreationTime": c.creation_time, "LastModifiedTime": c.last_modified,
            })
        },
    )
}

/// DeleteInferenceComponent: Deleting now (its copies stop), gone after the delete time.
pub fn delete(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let now = now_epoch();
    let mut world = sb.world.write();
    let c = &mut world.components;
    if let Some(adapter) = c.items.values().find(|a| a.spec.base.as_deref() == Some(name)) {
        return Err(ApiError::validation(format!(
            "Cannot delete inference component {name}: adapter inference component {} uses it as its base. Delete the adapters first.",
            adapter.name
        )));
    }
    let ic = c.items.get_mut(name).ok_or_else(|| not_found(sb, name))?;
    if ic.status.is_transient() {
        return Err(ApiError::validation(format!(
            "Cannot delete inference component \"{}\" while it is {}.",
            ic.arn,
            ic.status.as_str()
        )));
    }
    ic.status = ComponentStatus::Deleting;
    ic.last_modified = now;
    ic.rollout = None;
    ic.deadline = Some(now + sb.config.timing.delete.as_secs_f64());
    c.advance(now);
    Ok(json!({}))
}
