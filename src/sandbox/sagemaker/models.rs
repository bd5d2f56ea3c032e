//! CreateModel, DescribeModel, ListModels and DeleteModel.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http::wire::ApiError;
use crate::sandbox::sagemaker::params::{ListParams, check_name, page, passes};
use crate::sandbox::world::clock::now_epoch;
use crate::sandbox::world::resources::{Container, Model};
use crate::sandbox::world::sandbox::Sandbox;

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
pub(super) struct CreateModelInput {
    model_name: String,
    primary_container: Option<ContainerInput>,
    containers: Option<Vec<ContainerInput>>,
    execution_role_arn: Option<String>,
}

pub(super) fn create_model(sb: &Sandbox, input: CreateModelInput) -> Result<Value, ApiError> {
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

pub(super) fn describe_model(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
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

pub(super) fn list_models(sb: &Sandbox, params: ListParams) -> Result<Value, ApiError> {
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

pub(super) fn delete_model(sb: &Sandbox, name: &str) -> Result<Value, ApiError> {
    let arn = sb.arn("model", name);
    match sb.world.write().models.remove(name) {
        Some(_) => Ok(json!({})),
        None => Err(ApiError::validation(format!("Could not find model \"{arn}\"."))),
    }
}
