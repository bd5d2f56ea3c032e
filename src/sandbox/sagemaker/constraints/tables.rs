//! The API model's constraints for each SageMaker operation the sandbox serves (botocore's
//! `service-2.json`), and the shared rules (names, tags, containers, variants, DeploymentConfig).

use crate::sandbox::sagemaker::constraints::rule::{Member, Pattern, Rule, opt, req};
use crate::sandbox::sagemaker::instance_types::{
    PRODUCTION_VARIANT_ACCELERATOR_TYPES, PRODUCTION_VARIANT_INSTANCE_TYPES,
};

const NAME: Pattern = Pattern {
    regex: "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
    shown: "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
};
const MODEL_NAME: Pattern = Pattern {
    regex: r"[a-zA-Z0-9]([\-a-zA-Z0-9]*[a-zA-Z0-9])?",
    shown: r"^[a-zA-Z0-9]([\-a-zA-Z0-9]*[a-zA-Z0-9])?",
};
pub(crate) const NAME_CONTAINS: Pattern = Pattern {
    regex: "[a-zA-Z0-9-]+",
    shown: "[a-zA-Z0-9-]+",
};
const ROLE_ARN: Pattern = Pattern {
    regex: r"arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+",
    shown: r"^arn:aws[a-z\-]*:iam::\d{12}:role/?[a-zA-Z_0-9+=,.@\-_/]+$",
};
/// The pattern of a SageMaker resource ARN (AddTags, ListTags, DeleteTags).
const RESOURCE_ARN: Pattern = Pattern {
    regex: "arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+",
    shown: "arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+",
};
const TAG_TEXT: Pattern = Pattern {
    regex: r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)",
    shown: r"^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$",
};
const IMAGE: Pattern = Pattern {
    regex: r"[\S]+",
    shown: r"[\S]+",
};
const URL: Pattern = Pattern {
    regex: "(https|s3)://([^/]+)/?(.*)",
    shown: "^(https|s3)://([^/]+)/?(.*)$",
};
const ENV_KEY: Pattern = Pattern {
    regex: "[a-zA-Z_][a-zA-Z0-9_]*",
    shown: "[a-zA-Z_][a-zA-Z0-9_]*",
};
const KMS_KEY: Pattern = Pattern {
    regex: "[a-zA-Z0-9:/_-]*",
    shown: "[a-zA-Z0-9:/_-]*",
};

pub(crate) const RESOURCE_NAME: Rule = Rule::Text(0, 63, Some(&NAME));
pub(crate) const MODEL: Rule = Rule::Text(0, 63, Some(&MODEL_NAME));
const TAG_KEY: Rule = Rule::Text(1, 128, Some(&TAG_TEXT));
const TAG: Rule = Rule::Struct(&[req("Key", TAG_KEY), req("Value", Rule::Text(0, 256, Some(&TAG_TEXT)))]);
pub(crate) const TAGS: Rule = Rule::List(0, 50, &TAG);
const ROLE: Rule = Rule::Text(20, 2048, Some(&ROLE_ARN));
pub(crate) const ORDER: Rule = Rule::Enum(&["Ascending", "Descending"]);

pub(crate) const CONTAINER: Rule = Rule::Struct(&[
    opt("ContainerHostname", RESOURCE_NAME),
    opt("Image", Rule::Text(0, 255, Some(&IMAGE))),
    opt("Mode", Rule::Enum(&["SingleModel", "MultiModel"])),
    opt("ModelDataUrl", Rule::Text(0, 1024, Some(&URL))),
    opt(
        "Environment",
        Rule::Map(100, &Rule::Text(0, 1024, Some(&ENV_KEY)), &Rule::Text(0, 1024, None)),
    ),
]);

const SERVERLESS: Rule = Rule::Struct(&[
    req("MemorySizeInMB", Rule::ServerlessMemory),
    req("MaxConcurrency", Rule::Int(Some(1), Some(200))),
    opt("ProvisionedConcurrency", Rule::Int(Some(1), Some(200))),
]);

const VARIANT: Rule = Rule::Struct(&[
    req("VariantName", RESOURCE_NAME),
    opt("ModelName", MODEL),
    opt("InitialInstanceCount", Rule::Int(Some(1), None)),
    opt("InstanceType", Rule::Enum(&PRODUCTION_VARIANT_INSTANCE_TYPES)),
    opt("InitialVariantWeight", Rule::FloatMin(0.0)),
    opt("AcceleratorType", Rule::Enum(&PRODUCTION_VARIANT_ACCELERATOR_TYPES)),
    opt("ServerlessConfig", SERVERLESS),
    opt("VolumeSizeInGB", Rule::Int(Some(1), Some(512))),
    opt("ModelDataDownloadTimeoutInSeconds", Rule::Int(Some(60), Some(3600))),
    opt(
        "ContainerStartupHealthCheckTimeoutInSeconds",
        Rule::Int(Some(60), Some(3600)),
    ),
    opt(
        "VariantInstanceProvisionTimeoutInSeconds",
        Rule::Int(Some(300), Some(3600)),
    ),
    opt("ManagedInstanceScaling", MANAGED_SCALING),
    opt("RoutingConfig", ROUTING),
]);

const MANAGED_SCALING: Rule = Rule::Struct(&[
    opt("Status", Rule::Enum(&["ENABLED", "DISABLED"])),
    opt("MinInstanceCount", Rule::Int(Some(0), None)),
    opt("MaxInstanceCount", Rule::Int(Some(1), None)),
]);

/// ProductionVariantRoutingConfig: KV_AWARE is in botocore's model (1.44), not yet in the Rust
/// crate's; PrefixAwareRoutingConfig's bounds are botocore's.
const ROUTING: Rule = Rule::Struct(&[
    req(
        "RoutingStrategy",
        Rule::Enum(&["LEAST_OUTSTANDING_REQUESTS", "RANDOM", "PREFIX_AWARE", "KV_AWARE"]),
    ),
    opt(
        "PrefixAwareRoutingConfig",
        Rule::Struct(&[
            opt("PrefixLength", Rule::Int(Some(1024), Some(65536))),
            opt("ConcurrencyThreshold", Rule::Int(Some(1), Some(1024))),
        ]),
    ),
]);

const DESIRED: Rule = Rule::Struct(&[
    req("VariantName", RESOURCE_NAME),
    opt("DesiredWeight", Rule::FloatMin(0.0)),
    opt("DesiredInstanceCount", Rule::Int(Some(0), None)),
]);

const VARIANT_PROPERTY: Rule = Rule::Struct(&[req(
    "VariantPropertyType",
    Rule::Enum(&["DesiredInstanceCount", "DesiredWeight", "DataCaptureConfig"]),
)]);

const CAPACITY: Rule = Rule::Struct(&[
    req("Type", Rule::Enum(&["INSTANCE_COUNT", "CAPACITY_PERCENT"])),
    req("Value", Rule::Int(Some(1), None)),
]);
const WAIT: Rule = Rule::Int(Some(0), Some(3600));
const TIMEOUT: Rule = Rule::Int(Some(600), Some(28800));
/// AWS's `(?!\s*$).+`, without the look-ahead the regex crate lacks.
const ALARM_NAME: Pattern = Pattern {
    regex: r".*\S.*",
    shown: r"(?!\s*$).+",
};
const DEPLOYMENT_CONFIG: Rule = Rule::Struct(&[
    opt(
        "BlueGreenUpdatePolicy",
        Rule::Struct(&[
            req(
                "TrafficRoutingConfiguration",
                Rule::Struct(&[
                    req("Type", Rule::Enum(&["ALL_AT_ONCE", "CANARY", "LINEAR"])),
                    req("WaitIntervalInSeconds", WAIT),
                    opt("CanarySize", CAPACITY),
                    opt("LinearStepSize", CAPACITY),
                ]),
            ),
            opt("TerminationWaitInSeconds", WAIT),
            opt("MaximumExecutionTimeoutInSeconds", TIMEOUT),
        ]),
    ),
    opt(
        "RollingUpdatePolicy",
        Rule::Struct(&[
            req("MaximumBatchSize", CAPACITY),
            req("WaitIntervalInSeconds", WAIT),
            opt("MaximumExecutionTimeoutInSeconds", TIMEOUT),
            opt("RollbackMaximumBatchSize", CAPACITY),
        ]),
    ),
    opt(
        "AutoRollbackConfiguration",
        Rule::Struct(&[opt(
            "Alarms",
            Rule::List(
                1,
                10,
                &Rule::Struct(&[opt("AlarmName", Rule::Text(1, 255, Some(&ALARM_NAME)))]),
            ),
        )]),
    ),
]);

/// The list members every List* operation shares, with its own sort keys.
macro_rules! list_input {
    ($($sort:literal),*; $($extra:expr),*) => {
        &[
            opt("SortBy", Rule::Enum(&[$($sort),*])),
            opt("SortOrder", ORDER),
            opt("NextToken", Rule::Text(0, 8192, None)),
            opt("MaxResults", Rule::Int(Some(1), Some(100))),
            opt("NameContains", Rule::Text(0, 63, Some(&NAME_CONTAINS))),
            $($extra),*
        ]
    };
}
pub(crate) use list_input;

const ENDPOINT_STATUS: Rule = Rule::Enum(&[
    "OutOfService",
    "Creating",
    "Updating",
    "SystemUpdating",
    "RollingBack",
    "InService",
    "Deleting",
    "Failed",
    "UpdateRollbackFailed",
]);

/// The input members of an operation the sandbox serves (None for others).
pub(super) fn input_of(op: &str) -> Option<&'static [Member]> {
    Some(match op {
        "CreateModel" => {
            const {
                &[
                    req("ModelName", MODEL),
                    opt("PrimaryContainer", CONTAINER),
                    opt("Containers", Rule::List(0, 15, &CONTAINER)),
                    opt("ExecutionRoleArn", ROLE),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeModel" | "DeleteModel" => const { &[req("ModelName", MODEL)] },
        "CreateEndpointConfig" => {
            const {
                &[
                    req("EndpointConfigName", RESOURCE_NAME),
                    req("ProductionVariants", Rule::List(1, 10, &VARIANT)),
                    opt("ShadowProductionVariants", Rule::List(1, 10, &VARIANT)),
                    opt("KmsKeyId", Rule::Text(0, 2048, Some(&KMS_KEY))),
                    opt("ExecutionRoleArn", ROLE),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeEndpointConfig" | "DeleteEndpointConfig" => const { &[req("EndpointConfigName", RESOURCE_NAME)] },
        "CreateEndpoint" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("EndpointConfigName", RESOURCE_NAME),
                    opt("Tags", TAGS),
                ]
            }
        }
        "DescribeEndpoint" | "DeleteEndpoint" => const { &[req("EndpointName", RESOURCE_NAME)] },
        "UpdateEndpoint" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("EndpointConfigName", RESOURCE_NAME),
                    opt("ExcludeRetainedVariantProperties", Rule::List(0, 3, &VARIANT_PROPERTY)),
                    opt("DeploymentConfig", DEPLOYMENT_CONFIG),
                ]
            }
        }
        "UpdateEndpointWeightsAndCapacities" => {
            const {
                &[
                    req("EndpointName", RESOURCE_NAME),
                    req("DesiredWeightsAndCapacities", Rule::List(1, usize::MAX, &DESIRED)),
                ]
            }
        }
        "ListModels" | "ListEndpointConfigs" => const { list_input!("Name", "CreationTime";) },
        "ListEndpoints" => {
            const { list_input!("Name", "CreationTime", "Status"; opt("StatusEquals", ENDPOINT_STATUS)) }
        }
        "AddTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    req("Tags", TAGS),
                ]
            }
        }
        "ListTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    opt("NextToken", Rule::Text(0, 8192, None)),
                    opt("MaxResults", Rule::Int(Some(50), None)),
                ]
            }
        }
        "DeleteTags" => {
            const {
                &[
                    req("ResourceArn", Rule::Text(0, 256, Some(&RESOURCE_ARN))),
                    req("TagKeys", Rule::List(1, 50, &TAG_KEY)),
                ]
            }
        }
        _ => return None,
    })
}
