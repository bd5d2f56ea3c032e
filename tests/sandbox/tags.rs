//! Tags on models, endpoint configurations and endpoints: `Tags` given at Create* are kept,
//! AddTags / ListTags / DeleteTags work from the Rust SDK and the AWS CLI, and what AWS refuses is
//! refused (an ARN of no resource, more than 50 tags, keys and values out of the model, `aws:`).
//! boto3's tag calls are in `tests/compat/model_checks.py`.

use aws_sdk_sagemaker::Client;
use aws_sdk_sagemaker::error::ProvideErrorMetadata;
use aws_sdk_sagemaker::types::{ContainerDefinition, ProductionVariant, ProductionVariantInstanceType, Tag};

use crate::common::{demo_config, poll_until, sandbox_with, sdk_config};
use crate::compat_boto3::{ClientEnv, venv_async};

fn tag(key: &str, value: &str) -> Tag {
    Tag::builder().key(key).value(value).build()
}

async fn tags_of(sm: &Client, arn: &str) -> Vec<(String, String)> {
    sm.list_tags()
        .resource_arn(arn)
        .send()
        .await
        .expect("ListTags")
        .tags()
        .iter()
        .map(|t| {
            (
                t.key().unwrap_or_default().to_string(),
                t.value().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(tags: &[(&str, &str)]) -> Vec<(String, String)> {
    tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// The message of a ValidationException (panics on success or another error).
fn refusal<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(r: Result<T, E>) -> String {
    let e = r.expect_err("AWS refuses this request");
    assert_eq!(e.code(), Some("ValidationException"), "{e:?}");
    e.message().unwrap_or_default().to_string()
}

/// Creates a tagged model, endpoint configuration and endpoint; their ARNs.
async fn create_tagged(sm: &Client) -> [String; 3] {
    let model = sm
        .create_model()
        .model_name("tagged")
        .primary_container(ContainerDefinition::builder().image("img:1").build())
        .execution_role_arn("arn:aws:iam::123456789012:role/R")
        .tags(tag("team", "ml"))
        .send()
        .await
        .expect("CreateModel")
        .model_arn()
        .unwrap()
        .to_string();
    let variant = ProductionVariant::builder()
        .variant_name("A")
        .model_name("tagged")
        .instance_type(ProductionVariantInstanceType::MlM5Large)
        .initial_instance_count(1)
        .build();
    let config = sm
        .create_endpoint_config()
        .endpoint_config_name("tagged-config")
        .production_variants(variant)
        .tags(tag("team", "ml"))
        .tags(tag("tier", "gold"))
        .send()
        .await
        .expect("CreateEndpointConfig")
        .endpoint_config_arn()
        .unwrap()
        .to_string();
    let endpoint = sm
        .create_endpoint()
        .endpoint_name("tagged-endpoint")
        .endpoint_config_name("tagged-config")
        .tags(tag("owner", "alice"))
        .send()
        .await
        .expect("CreateEndpoint")
        .endpoint_arn()
        .unwrap()
        .to_string();
    [model, config, endpoint]
}

#[tokio::test]
async fn tags_given_at_create_are_kept_and_changed_by_the_rust_sdk() {
    let sb = sandbox_with(demo_config()).await;
    let sm = Client::new(&sdk_config(&sb).await);
    let [model, config, endpoint] = create_tagged(&sm).await;
    assert_eq!(tags_of(&sm, &model).await, pairs(&[("team", "ml")]));
    assert_eq!(tags_of(&sm, &config).await, pairs(&[("team", "ml"), ("tier", "gold")]));
    assert_eq!(tags_of(&sm, &endpoint).await, pairs(&[("owner", "alice")]));

    sm.add_tags()
        .resource_arn(&endpoint)
        .tags(tag("owner", "bob"))
        .tags(tag("oncall", "team-ml"))
        .send()
        .await
        .expect("AddTags");
    assert_eq!(
        tags_of(&sm, &endpoint).await,
        pairs(&[("owner", "bob"), ("oncall", "team-ml")])
    );
    sm.delete_tags()
        .resource_arn(&endpoint)
        .tag_keys("owner")
        .tag_keys("never-there")
        .send()
        .await
        .expect("DeleteTags");
    assert_eq!(tags_of(&sm, &endpoint).await, pairs(&[("oncall", "team-ml")]));

    // A name deleted and created again starts with its own tags.
    sm.delete_endpoint()
        .endpoint_name("tagged-endpoint")
        .send()
        .await
        .unwrap();
    poll_until(
        "the endpoint to be gone",
        std::time::Duration::from_secs(10),
        || async {
            sm.describe_endpoint()
                .endpoint_name("tagged-endpoint")
                .send()
                .await
                .is_err()
                .then_some(())
        },
    )
    .await;
    let m = refusal(sm.list_tags().resource_arn(&endpoint).send().await);
    assert_eq!(m, format!("Could not find endpoint \"{endpoint}\"."));
    sm.create_endpoint()
        .endpoint_name("tagged-endpoint")
        .endpoint_config_name("tagged-config")
        .send()
        .await
        .unwrap();
    assert_eq!(tags_of(&sm, &endpoint).await, Vec::new());
}

#[tokio::test]
async fn what_aws_refuses_in_tags_is_refused() {
    let sb = sandbox_with(demo_config()).await;
    let sm = Client::new(&sdk_config(&sb).await);
    let [model, ..] = create_tagged(&sm).await;

    let m = refusal(
        sm.add_tags()
            .resource_arn(&model)
            .tags(tag("AWS:owner", "x"))
            .send()
            .await,
    );
    assert!(m.contains("reserved for AWS use: AWS:owner"), "{m}");
    let fifty: Vec<Tag> = (0..50).map(|i| tag(&format!("k{i}"), "v")).collect();
    let m = refusal(sm.add_tags().resource_arn(&model).set_tags(Some(fifty)).send().await);
    assert!(m.contains("51 tags; a resource has at most 50"), "{m}");
    let many: Vec<Tag> = (0..51).map(|i| tag(&format!("k{i}"), "v")).collect();
    let m = refusal(sm.add_tags().resource_arn(&model).set_tags(Some(many)).send().await);
    assert!(
        m.contains("at 'tags' failed to satisfy constraint: Member must have length less than or equal to 50"),
        "{m}"
    );
    let long_key = "k".repeat(129);
    let m = refusal(
        sm.add_tags()
            .resource_arn(&model)
            .tags(tag(&long_key, "v"))
            .send()
            .await,
    );
    assert!(
        m.contains(
            "at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128"
        ),
        "{m}"
    );
    let m = refusal(sm.list_tags().resource_arn("not-an-arn").send().await);
    assert!(
        m.contains("Value 'not-an-arn' at 'resourceArn' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+"),
        "{m}"
    );
    let m = refusal(
        sm.create_endpoint()
            .endpoint_name("e2")
            .endpoint_config_name("tagged-config")
            .tags(tag("aws:cloudformation:stack-name", "x"))
            .send()
            .await,
    );
    assert!(m.contains("reserved for AWS use"), "{m}");
    assert!(
        sm.describe_endpoint().endpoint_name("e2").send().await.is_err(),
        "a refused Create* creates nothing"
    );
    assert_eq!(
        tags_of(&sm, &model).await,
        pairs(&[("team", "ml")]),
        "nothing was added"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aws_cli_adds_lists_and_deletes_tags() {
    let venv = venv_async().await;
    let sb = sandbox_with(demo_config()).await;
    let sm = Client::new(&sdk_config(&sb).await);
    let [_, _, endpoint] = create_tagged(&sm).await;
    let env = ClientEnv::new(sb.endpoint_url());
    let added = env
        .aws(
            venv,
            &[
                "sagemaker",
                "add-tags",
                "--resource-arn",
                &endpoint,
                "--tags",
                "Key=oncall,Value=team-ml",
            ],
        )
        .await;
    assert_eq!(added["Tags"][0]["Key"], "oncall", "{added}");
    let out = env
        .aws_output(
            venv,
            &[
                "sagemaker",
                "delete-tags",
                "--resource-arn",
                &endpoint,
                "--tag-keys",
                "owner",
            ],
        )
        .await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = env
        .aws(venv, &["sagemaker", "list-tags", "--resource-arn", &endpoint])
        .await;
    assert_eq!(
        listed["Tags"],
        serde_json::json!([{"Key": "oncall", "Value": "team-ml"}]),
        "{listed}"
    );
    let refused = env
        .aws_output(
            venv,
            &[
                "sagemaker",
                "add-tags",
                "--resource-arn",
                &endpoint,
                "--tags",
                "Key=aws:x,Value=y",
            ],
        )
        .await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("(ValidationException) when calling the AddTags operation"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
