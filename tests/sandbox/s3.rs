//! S3 listing of the MME catalog, as the fleet layer will use it (path-style, paged).

use aws_sdk_s3::error::ProvideErrorMetadata;

use crate::common::{demo_config, sandbox_with, sdk_config};

async fn client(sb: &sagedeck::sandbox::SandboxHandle) -> aws_sdk_s3::Client {
    let conf = sdk_config(sb).await;
    aws_sdk_s3::Client::from_conf(aws_sdk_s3::config::Builder::from(&conf).force_path_style(true).build())
}

#[tokio::test]
async fn list_objects_v2_pages_the_prefix() {
    let sb = sandbox_with(demo_config()).await;
    let s3 = client(&sb).await;
    let pages: Vec<_> = s3
        .list_objects_v2()
        .bucket("sagedeck-demo-models")
        .prefix("tenants/")
        .max_keys(7)
        .into_paginator()
        .send()
        .collect::<Vec<_>>()
        .await;
    assert!(pages.len() > 3, "paged by 7");
    let keys: Vec<String> = pages
        .iter()
        .flat_map(|p| {
            p.as_ref()
                .unwrap()
                .contents()
                .iter()
                .map(|o| o.key().unwrap().to_string())
        })
        .collect();
    assert_eq!(keys.len(), 37);
    assert!(keys.contains(&"tenants/tenant-acme-finetuned-v2.tar.gz".to_string()));
    assert!(keys.iter().all(|k| k.starts_with("tenants/")));
    let first = pages[0].as_ref().unwrap();
    assert!(first.contents()[0].size().unwrap() > 0);
    assert!(first.contents()[0].last_modified().is_some());

    let dirs = s3
        .list_objects_v2()
        .bucket("sagedeck-demo-models")
        .delimiter("/")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<_> = dirs.common_prefixes().iter().map(|p| p.prefix().unwrap()).collect();
    assert_eq!(prefixes, vec!["models/", "tenants/"]);

    let head = s3
        .head_object()
        .bucket("sagedeck-demo-models")
        .key("models/README.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(512));
    let body = s3
        .get_object()
        .bucket("sagedeck-demo-models")
        .key("models/README.txt")
        .send()
        .await
        .unwrap();
    assert_eq!(body.body.collect().await.unwrap().into_bytes().len(), 512);
    let err = s3.list_objects_v2().bucket("no-such-bucket").send().await.unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));
}
