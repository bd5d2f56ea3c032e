//! SageMaker control plane (awsJson1_1, `x-amz-target: SageMaker.<Op>`): Create, Describe, List
//! and Delete for models, endpoint configurations and endpoints, UpdateEndpoint and
//! UpdateEndpointWeightsAndCapacities, tags (`tags.rs`), with AWS's validation texts where they
//! are known and the API model's constraints checked first (`constraints.rs`).

use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use serde::Deserialize;
use serde_json::{Value, json};

use super::control_endpoints as endpoints;
use super::state::{ConfigVariant, Container, EndpointConfig, Model};
use super::wire::{ApiError, Protocol, decode_json, json_ok, parse_input};
use super::{Sandbox, now_epoch};

/// Serves one SageMaker control-plane operation.
pub async fn handle(sb: &Sandbox, op: &str, body: &[u8]) -> Response {
    match dispatch(sb, op, body) {
        Ok(v) => json_ok(Protocol::AwsJson11, &v),
        Err(e) => e.into_response(Protocol::AwsJson11),
    }
}

fn dispatch(sb: &Sandbox, op: &str, body: &[u8]) -> Result<Value, ApiError> {
    let doc = decode_json(body)?;
    let endpoint_hint = doc.get("EndpointName").and_then(Value::as_str).map(str::to_string);
    // A deployment failure is not an error answer: the update is accepted and fails later.
    let mut deployment_failure = None;
    if let Some(kind) = sb.faults.take(op, endpoint_hint.as_deref(), None) {
        if let super::faults::FaultKind::DeploymentFailure { message } = kind {
            deployment_failure = Some(message);
        } else if let Some(e) = super::faults::fault_error(&kind, sb, endpoint_hint.as_deref().unwrap_or("")) {
            return Err(e);
        }
    }
    super::constraints::check(op, &doc)?;
    let created_tags = super::tags::given_at_create(op, &doc)?;
    sb.world.write().advance(now_epoch());
    let answer = match op {
        "CreateModel" => create_model(sb, parse_input(doc)?),
        "DescribeModel" => describe_model(sb, &name_of(&doc, "ModelName")?),
        "ListModels" => list_models(sb, parse_input(doc)?),
        "DeleteModel" => delete_model(sb, &name_of(&doc, "ModelName")?),
        "CreateEndpointConfig" => create_endpoint_config(sb, parse_input(doc)?),
        "DescribeEndpointConfig" => describe_endpoint_config(sb, &name_of(&doc, "EndpointConfigName")?),
        "ListEndpointConfigs" => list_endpoint_configs(sb, parse_input(doc)?),
        "DeleteEndpointConfig" => delete_endpoint_config(sb, &name_of(&doc, "EndpointConfigName")?),
        "CreateEndpoint" => endpoints::create(sb, parse_input(doc)?),
        "DescribeEndpoint" => endpoints::describe(sb, &name_of(&doc, "EndpointName")?),
        "ListEndpoints" => endpoints::list(sb, parse_input(doc)?),
        "DeleteEndpoint" => endpoints::delete(sb, &name_of(&doc, "EndpointName")?),
        "UpdateEndpoint" => super::control_deploy::update(sb, parse_input(doc)?, deployment_failure),
        "UpdateEndpointWeightsAndCapacities" => endpoints::update_weights(sb, parse_input(doc)?),
        "AddTags" | "ListTags" | "DeleteTags" => super::tags::handle(sb, op, &doc),
        "" => Err(unknown_op("(none)")),
        other => Err(unknown_op(other)),
    };
    if let (Ok(out), Some(tags)) = (&answer, created_tags) {
        super::tags::keep_created(sb, out, tags);
    }
    answer
}

fn unknown_op(op: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "UnknownOperationException",
        format!("The sandbox does not implement SageMaker operation {op}."),
    )
}

/// A required string member.
pub fn name_of(doc: &Value, member: &str) -> Result<String, ApiError> {
    doc.get(member)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            ApiError::validation(format!(
                "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
                lower_first(member)
            ))
        })
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Checks a resource name against SageMaker's pattern `^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$`.
pub fn check_name(member: &str, name: &str) -> Result<(), ApiError> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(ApiError::validation(format!(
            "1 validation error detected: Value '{name}' at '{}' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){{0,62}}",
            lower_first(member)
        )))
    }
}

/// Common list parameters (MaxResults, NextToken, sorting, name and time filters).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ListParams {
    /// Page size (1-100, default 10).
    pub max_results: Option<i64>,
    /// Continuation token.
    pub next_token: Option<String>,
    /// Name | CreationTime (| Status for endpoints).
    pub sort_by: Option<String>,
    /// Ascending | Descending.
    pub sort_order: Option<String>,
    /// Substring filter on the name.
    pub name_contains: Option<String>,
    /// Created before.
    pub creation_time_before: Option<f64>,
    /// Created after.
    pub creation_time_after: Option<f64>,
    /// Modified before (endpoints).
    pub last_modified_time_before: Option<f64>,
    /// Modified after (endpoints).
    pub last_modified_time_after: Option<f64>,
    /// Status filter (endpoints).
    pub status_equals: Option<String>,
}

/// Sorts, pages and wraps items into `{ <key>: [...], NextToken }`.
pub fn page<T>(
    params: &ListParams,
    mut items: Vec<T>,
    key: &str,
    sort_key: impl Fn(&T, &str) -> (String, f64),
    to_json: impl Fn(&T) -> Value,
) -> Result<Value, ApiError> {
    let max = params.max_results.unwrap_or(10);
    if !(1..=100).contains(&max) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{max}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100"
        )));
    }
    let by = params.sort_by.clone().unwrap_or_else(|| "CreationTime".into());
    if !["Name", "CreationTime", "Status"].contains(&by.as_str()) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{by}' at 'sortBy' failed to satisfy enum value set: [Name, CreationTime, Status]"
        )));
    }
    let descending = match params.sort_order.as_deref() {
        None | Some("Descending") => true,
        Some("Ascending") => false,
        Some(other) => {
            return Err(ApiError::validation(format!(
                "1 validation error detected: Value '{other}' at 'sortOrder' failed to satisfy enum value set: [Ascending, Descending]"
            )));
        }
    };
    items.sort_by(|a, b| {
        let (sa, ta) = sort_key(a, &by);
        let (sb_, tb) = sort_key(b, &by);
        let ord = if by == "CreationTime" {
            ta.total_cmp(&tb).then(sa.cmp(&sb_))
        } else {
            sa.cmp(&sb_).then(ta.total_cmp(&tb))
        };
        if descending { ord.reverse() } else { ord }
    });
    let start = match &params.next_token {
        None => 0,
        Some(t) => decode_token(t).ok_or_else(|| ApiError::validation("Invalid pagination token.".to_string()))?,
    };
    let end = (start + max as usize).min(items.len());
    let slice: Vec<Value> = items.get(start..end).unwrap_or(&[]).iter().map(to_json).collect();
    let mut out = json!({ key: slice });
    if end < items.len() {
        out["NextToken"] = Value::String(encode_token(end));
    }
    Ok(out)
}

fn encode_token(offset: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(format!("sandbox-offset:{offset}"))
}

fn decode_token(t: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::STANDARD.decode(t).ok()?;
    String::from_utf8(raw)
        .ok()?
        .strip_prefix("sandbox-offset:")?
        .parse()
        .ok()
}

/// Whether an item passes the name and time filters.
pub fn passes(params: &ListParams, name: &str, created: f64, modified: f64) -> bool {
    params
        .name_contains
        .as_deref()
        .is_none_or(|s| name.to_ascii_lowercase().contains(&s.to_ascii_lowercase()))
        && params.creation_time_before.is_none_or(|t| created < t)
        && params.creation_time_after.is_none_or(|t| created > t)
        && params.last_modified_time_before.is_none_or(|t| modified < t)
        && params.last_modified_time_after.is_none_or(|t| modified > t)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ContainerInput {
    image: Option<String>,
    model_data_url: Option<String>,
    mode: Option<String>,
    #[serde(default)]
    environment: std::collections::BTreeMap<String, String>,
    container_hostname: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct CreateModelInput {
    model_name: String,
    primary_container: Option<ContainerInput>,
    containers: Option<Vec<ContainerInput>>,
    execution_role_arn: Option<String>,
}

fn create_model(sb: &Sandbox, input: CreateModelInput) -> Result<Value, ApiError> {
    check_name("ModelName", &input.model_name)?;
    let uses_list = input.primary_container.is_none();
    let c = input
        .primary_container
        .or_else(|| input.containers.and_then(|v| v.into_iter().next()))
        .ok_or_else(|| ApiError::validation("Either PrimaryContainer or Containers must be provided."))?;
    let mode = c.mode.unwrap_or_else(|| "SingleModel".into());
    if mode != "SingleModel" && mode != "MultiModel" {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '{mode}' at 'primaryContainer.mode' failed to satisfy enum value set: [SingleModel, MultiModel]"
        )));
    }
    let arn = sb.arn("model", &input.model_name);
    let mut world = sb.world.write();
    if world.models.contains_key(&input.model_name) {
        return Err(ApiError::validation(format!(
            "Cannot create already existing model \"{arn}\"."
        )));
    }
    world.models.insert(
        input.model_name.clone(),
        Model {
            name: input.model_name,
            arn: arn.clone(),
            creation_time: now_epoch(),
            execution_role_arn: input
                .execution_role_arn
                .unwrap_or_else(|| format!("arn:aws:iam::{}:role/SageMakerExecutionRole", sb.config.account)),
            container: Container {
                image: c.image.unwrap_or_default(),
                model_data_url: c.model_data_url,
                mode,
                environment: c.environment,
                hostname: c.container_hostname,
            },
            uses_container_list: uses_list,
        },
    );
    Ok(json!({ "ModelArn": arn }))
}

fn container_json(c: &Container) -> Value {
    let mut v = json!({ "Image": c.image, "Mode": c.mode, "Environment": c.environment });
    if let Some(url) = &c.model_data_url {
        v["ModelDataUrl"] = url.clone().into();
    }
    if let Some(h) = &c.hostname {
        v["ContainerHostname"] = h.clone().into();
    }
    v
}

fn describe_model(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let m = world
        .models
        .get(name)
        .ok_or_else(|| ApiError::validation(format!("Could not find model \"{}\".", sb.arn("model", name))))?;
    let mut v = json!({
        "ModelName": m.name, "ModelArn": m.arn, "CreationTime": m.creation_time,
        "ExecutionRoleArn": m.execution_role_arn, "EnableNetworkIsolation": false,
    });
    if m.uses_container_list {
        v["Containers"] = json!([container_json(&m.container)]);
    } else {
        v["PrimaryContainer"] = container_json(&m.container);
    }
    Ok(v)
}

fn list_models(sb: &Sandbox, params: ListParams) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let items: Vec<&Model> = world
        .models
        .values()
        .filter(|m| passes(&params, &m.name, m.creation_time, m.creation_time))
        .collect();
    page(
        &params,
        items,
        "Models",
        |m, _| (m.name.clone(), m.creation_time),
        |m| json!({"ModelName": m.name, "ModelArn": m.arn, "CreationTime": m.creation_time}),
    )
}

fn delete_model(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let arn = sb.arn("model", name);
    match sb.world.write().models.remove(name) {
        Some(_) => Ok(json!({})),
        None => Err(ApiError::validation(format!("Could not find model \"{arn}\"."))),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct VariantInput {
    variant_name: String,
    model_name: String,
    instance_type: Option<String>,
    initial_instance_count: Option<i32>,
    initial_variant_weight: Option<f64>,
    serverless_config: Option<Value>,
    /// Every other member (VolumeSizeInGB, RoutingConfig, ...), kept and echoed.
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct CreateEndpointConfigInput {
    endpoint_config_name: String,
    production_variants: Vec<VariantInput>,
    /// Every other member (DataCaptureConfig, KmsKeyId, ...), kept and echoed (Tags excepted).
    #[serde(flatten)]
    extra: serde_json::Map<String, Value>,
}

fn create_endpoint_config(sb: &Sandbox, input: CreateEndpointConfigInput) -> Result<Value, ApiError> {
    check_name("EndpointConfigName", &input.endpoint_config_name)?;
    let n = input.production_variants.len();
    if !(1..=10).contains(&n) {
        return Err(ApiError::validation(format!(
            "1 validation error detected: Value '[...]' at 'productionVariants' failed to satisfy constraint: Member must have length between 1 and 10 (got {n})"
        )));
    }
    let arn = sb.arn("endpoint-config", &input.endpoint_config_name);
    let mut world = sb.world.write();
    if world.configs.contains_key(&input.endpoint_config_name) {
        return Err(ApiError::validation(format!(
            "Cannot create already existing endpoint configuration \"{arn}\"."
        )));
    }
    let mut extra = input.extra;
    extra.remove("Tags");
    let mut variants = Vec::new();
    for v in input.production_variants {
        check_name("VariantName", &v.variant_name)?;
        if variants.iter().any(|x: &ConfigVariant| x.name == v.variant_name) {
            return Err(ApiError::validation(format!(
                "Variant name \"{}\" is used more than once in ProductionVariants; variant names must be unique.",
                v.variant_name
            )));
        }
        if !world.models.contains_key(&v.model_name) {
            return Err(ApiError::validation(format!(
                "Could not find model \"{}\".",
                sb.arn("model", &v.model_name)
            )));
        }
        let weight = v.initial_variant_weight.unwrap_or(1.0);
        if !weight.is_finite() || weight < 0.0 {
            return Err(ApiError::validation(format!(
                "InitialVariantWeight of variant \"{}\" must be a number >= 0 (got {weight}).",
                v.variant_name
            )));
        }
        if v.serverless_config.is_none() && (v.instance_type.is_none() || v.initial_instance_count.unwrap_or(0) < 1) {
            return Err(ApiError::validation(format!(
                "Variant \"{}\" needs InstanceType and InitialInstanceCount >= 1, or a ServerlessConfig.",
                v.variant_name
            )));
        }
        variants.push(ConfigVariant {
            name: v.variant_name,
            model_name: v.model_name,
            instance_type: v.instance_type,
            initial_instance_count: v.initial_instance_count.unwrap_or(1),
            initial_weight: weight,
            serverless: v.serverless_config,
            extra: v.extra,
        });
    }
    world.configs.insert(
        input.endpoint_config_name.clone(),
        EndpointConfig {
            name: input.endpoint_config_name,
            arn: arn.clone(),
            creation_time: now_epoch(),
            variants,
            extra,
        },
    );
    Ok(json!({ "EndpointConfigArn": arn }))
}

fn describe_endpoint_config(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let c = world.configs.get(name).ok_or_else(|| {
        ApiError::validation(format!(
            "Could not find endpoint configuration \"{}\".",
            sb.arn("endpoint-config", name)
        ))
    })?;
    let variants: Vec<Value> = c
        .variants
        .iter()
        .map(|v| {
            let mut j = Value::Object(v.extra.clone());
            j["VariantName"] = v.name.clone().into();
            j["ModelName"] = v.model_name.clone().into();
            j["InitialVariantWeight"] = v.initial_weight.into();
            if let Some(t) = &v.instance_type {
                j["InstanceType"] = t.clone().into();
                j["InitialInstanceCount"] = v.initial_instance_count.into();
            }
            if let Some(s) = &v.serverless {
                j["ServerlessConfig"] = s.clone();
            }
            j
        })
        .collect();
    let mut out = Value::Object(c.extra.clone());
    out["EndpointConfigName"] = c.name.clone().into();
    out["EndpointConfigArn"] = c.arn.clone().into();
    out["ProductionVariants"] = Value::Array(variants);
    out["CreationTime"] = c.creation_time.into();
    Ok(out)
}

fn list_endpoint_configs(sb: &Sandbox, params: ListParams) -> Result<Value, ApiError> {
    let world = sb.world.read();
    let items: Vec<&EndpointConfig> = world
        .configs
        .values()
        .filter(|c| passes(&params, &c.name, c.creation_time, c.creation_time))
        .collect();
    page(
        &params,
        items,
        "EndpointConfigs",
        |c, _| (c.name.clone(), c.creation_time),
        |c| json!({"EndpointConfigName": c.name, "EndpointConfigArn": c.arn, "CreationTime": c.creation_time}),
    )
}

fn delete_endpoint_config(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let arn = sb.arn("endpoint-config", name);
    match sb.world.write().configs.remove(name) {
        Some(_) => Ok(json!({})),
        None => Err(ApiError::validation(format!(
            "Could not find endpoint configuration \"{arn}\"."
        ))),
    }
}
