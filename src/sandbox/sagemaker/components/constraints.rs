//! The constraints of AWS's API model on the inference-component operations' members
//! (botocore's `service-2.json`, as `constraints.rs` has them for the other operations).

use crate::sandbox::sagemaker::constraints::{
    CONTAINER, MODEL, Member, NAME_CONTAINS, ORDER, RESOURCE_NAME, Rule, TAGS, list_input, opt, req,
};
use crate::sandbox::sagemaker::instance_types::PRODUCTION_VARIANT_INSTANCE_TYPES;

const COMPUTE: Rule = Rule::Struct(&[
    opt("NumberOfCpuCoresRequired", Rule::FloatMin(0.25)),
    opt("NumberOfAcceleratorDevicesRequired", Rule::FloatMin(1.0)),
    req("MinMemoryRequiredInMb", Rule::Int(Some(128), None)),
    opt("MaxMemoryRequiredInMb", Rule::Int(Some(128), None)),
    opt("AcceleratorPartitionType", Rule::Text(1, 64, None)),
]);

const STARTUP: Rule = Rule::Struct(&[
    opt("ModelDataDownloadTimeoutInSeconds", Rule::Int(Some(60), Some(3600))),
    opt(
        "ContainerStartupHealthCheckTimeoutInSeconds",
        Rule::Int(Some(60), Some(3600)),
    ),
]);

const SPECIFICATION: Rule = Rule::Struct(&[
    opt("InstanceType", Rule::Enum(&PRODUCTION_VARIANT_INSTANCE_TYPES)),
    opt("ModelName", MODEL),
    opt("Container", CONTAINER),
    opt("StartupParameters", STARTUP),
    opt("ComputeResourceRequirements", COMPUTE),
    opt("BaseInferenceComponentName", MODEL),
    opt("DataCacheConfig", Rule::Struct(&[req("EnableCaching", Rule::Bool)])),
    opt(
        "SchedulingConfig",
        Rule::Struct(&[req("PlacementStrategy", Rule::Enum(&["SPREAD", "BINPACK"]))]),
    ),
]);

const RUNTIME: Rule = Rule::Struct(&[req("CopyCount", Rule::Int(Some(0), None))]);

const CAPACITY_SIZE: Rule = Rule::Struct(&[
    req("Type", Rule::Enum(&["COPY_COUNT", "CAPACITY_PERCENT"])),
    req("Value", Rule::Int(Some(1), None)),
]);

const ALARM: Rule = Rule::Struct(&[opt("AlarmName", Rule::Text(1, 255, None))]);

const DEPLOYMENT: Rule = Rule::Struct(&[
    req(
        "RollingUpdatePolicy",
        Rule::Struct(&[
            req("MaximumBatchSize", CAPACITY_SIZE),
            req("WaitIntervalInSeconds", Rule::Int(Some(0), Some(3600))),
            opt("MaximumExecutionTimeoutInSeconds", Rule::Int(Some(600), Some(28800))),
            opt("RollbackMaximumBatchSize", CAPACITY_SIZE),
        ]),
    ),
    opt(
        "AutoRollbackConfiguration",
        Rule::Struct(&[opt("Alarms", Rule::List(1, 10, &ALARM))]),
    ),
]);

const STATUS: Rule = Rule::Enum(&["InService", "Creating", "Updating", "Failed", "Deleting"]);

/// The input members of an inference-component operation (None for other operations).
pub fn input_of(op: &str) -> Option<&'static [Member]> {
    Some(match op {
        "CreateInferenceComponent" => {
            const {
                &[
                    req("InferenceComponentName", MODEL),
                    req("EndpointName", RESOURCE_NAME),
                    opt("VariantName", RESOURCE_NAME),
                    opt("Specification", SPECIFICATION),
                    opt("Specifications", Rule::List(1, 5, &SPECIFICATION)),
                    opt("RuntimeConfig", RUNTIME),
                    opt("Tags", TAGS),
                ]
            }
        }
        "UpdateInferenceComponent" => {
            const {
                &[
                    req("InferenceComponentName", MODEL),
                    opt("Specification", SPECIFICATION),
                    opt("Specifications", Rule::List(1, 5, &SPECIFICATION)),
                    opt("RuntimeConfig", RUNTIME),
                    opt("DeploymentConfig", DEPLOYMENT),
                ]
            }
        }
        "UpdateInferenceComponentRuntimeConfig" => {
            const {
                &[
                    req("InferenceComponentName", MODEL),
                    req("DesiredRuntimeConfig", RUNTIME),
                ]
            }
        }
        "DescribeInferenceComponent" | "DeleteInferenceComponent" => const { &[req("InferenceComponentName", MODEL)] },
        "ListInferenceComponents" => {
            const {
                list_input!("Name", "CreationTime", "Status";
                    opt("StatusEquals", STATUS),
                    opt("EndpointNameEquals", RESOURCE_NAME),
                    opt("VariantNameEquals", RESOURCE_NAME))
            }
        }
        _ => return None,
    })
}
