//! A deployment planned from what the operator asks, for the CLI and the console alike: the
//! target configuration (named, or written for `--model`), the facts, the spec with its gate
//! alarms, every check made before anything is sent; then run: the configuration written, the
//! gate alarms created, the guarded start (gate alarms deleted again when it is refused).

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use aws_sdk_sagemaker::operation::describe_endpoint_config::DescribeEndpointConfigOutput;
use aws_sdk_sagemaker::types::{DeploymentConfig, ProductionVariant};

use crate::aws::Fleet;
use crate::aws::change::guard::Audited;
use crate::aws::deploy::gate_alarms::{GateAlarm, gate_alarms};
use crate::aws::deploy::new_config::{ModelSwap, fresh_config_name, swapped_variants};
use crate::aws::deploy::policy::{DeployFacts, DeploySpec, Policy, refusals};
use crate::aws::deploy::send::{DeployError, DeployRequest, Started};
use crate::aws::deploy::stepper::policy_of;
use crate::aws::endpoints::inventory::EndpointInfo;

/// The configuration to deploy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigChoice {
    /// An existing configuration (`--config`).
    Named(String),
    /// The live configuration with one variant's model replaced (`--model`).
    Swap(ModelSwap),
}

/// What the operator asks for.
#[derive(Debug, Clone)]
pub struct DeployAsk {
    /// The configuration.
    pub config: ConfigChoice,
    /// The policy.
    pub policy: Policy,
    /// The timeout (None: the waits and 30 minutes).
    pub max_time_secs: Option<i32>,
    /// Existing rollback alarms.
    pub alarms: Vec<String>,
    /// Create the gate alarms too.
    pub gate_alarms: bool,
    /// Keep the gate alarms after the deployment (recorded in their description, so any
    /// watcher leaves them).
    pub keep_alarms: bool,
    /// RetainAllVariantProperties.
    pub retain_all: bool,
    /// RetainDeploymentConfig: deploy by the endpoint's LastDeploymentConfig (the policy, the
    /// timeout and the alarms above are not used).
    pub retain_deployment: bool,
    /// The configuration the operator saw the endpoint on (None: as read now).
    pub expected_config: Option<String>,
}

/// The configuration a deployment goes onto.
#[derive(Debug, Clone)]
pub struct NewConfig {
    /// Its name.
    pub name: String,
    /// Its variants.
    pub variants: Vec<ProductionVariant>,
    /// For `--model`: the live configuration it is written from (it does not exist yet).
    pub derived_from: Option<Arc<DescribeEndpointConfigOutput>>,
}

/// What a deployment asks besides its configuration: the policy, the timeout, the alarms.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyAsk {
    /// The policy.
    pub policy: Policy,
    /// The timeout, when one is given.
    pub max_time_secs: Option<i32>,
    /// The rollback alarms.
    pub alarms: Vec<String>,
}

/// The policy, timeout and alarms a LastDeploymentConfig carries (no policy: all at once
/// without a bake, as AWS deploys without one).
pub fn retained_policy(last: &DeploymentConfig) -> PolicyAsk {
    let policy = policy_of(last).unwrap_or(Policy::BlueGreen {
        shift: crate::aws::deploy::policy::Shift::AllAtOnce,
        bake_secs: 0,
        final_bake_secs: 0,
    });
    let max_time_secs = last
        .blue_green_update_policy()
        .and_then(|b| b.maximum_execution_timeout_in_seconds())
        .or_else(|| {
            last.rolling_update_policy()
                .and_then(|r| r.maximum_execution_timeout_in_seconds())
        });
    let alarms = last
        .auto_rollback_configuration()
        .map(|a| {
            a.alarms()
                .iter()
                .filter_map(|a| a.alarm_name())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    PolicyAsk {
        policy,
        max_time_secs,
        alarms,
    }
}

/// A deployment checked and ready to confirm and run.
#[derive(Debug, Clone)]
pub struct DeployPlan {
    /// The endpoint as read.
    pub info: EndpointInfo,
    /// The facts the checks read.
    pub facts: DeployFacts,
    /// The configuration it goes onto.
    pub target: NewConfig,
    /// Policy, timeout, alarms (gate alarms included), retention.
    pub spec: DeploySpec,
    /// The gate alarms to create.
    pub gates: Vec<GateAlarm>,
    /// Keep the gate alarms after the deployment.
    pub keep_alarms: bool,
}

impl Fleet {
    /// The configuration `choice` names or writes, on `info`.
    pub async fn deployment_target(
        &self,
        info: &EndpointInfo,
        choice: &ConfigChoice,
    ) -> Result<NewConfig, DeployError> {
        let calls = AtomicUsize::new(0);
        match choice {
            ConfigChoice::Named(name) => {
                let c = self.endpoint_config(name, &calls).await?;
                Ok(NewConfig {
                    name: name.clone(),
                    variants: c.production_variants().to_vec(),
                    derived_from: None,
                })
            }
            ConfigChoice::Swap(swap) => {
                let live = info.config_name.clone().unwrap_or_default();
                let from = self.endpoint_config(&live, &calls).await?;
                let variants = swapped_variants(&from, swap).map_err(|e| DeployError::Invalid(vec![e]))?;
                Ok(NewConfig {
                    name: fresh_config_name(&live).await,
                    variants,
                    derived_from: Some(from),
                })
            }
        }
    }

    /// The gate alarms of `facts` (the latency ceiling from each live variant's last 24 h).
    pub async fn plan_gate_alarms(&self, facts: &DeployFacts) -> Result<Vec<GateAlarm>, DeployError> {
        let mut ceilings = Vec::new();
        for v in &facts.new {
            ceilings.push((v.name.clone(), self.p99_ceiling(&facts.endpoint, &v.name).await?));
        }
        Ok(gate_alarms(&facts.endpoint, &ceilings))
    }

    /// The endpoint's LastDeploymentConfig, when it has one.
    pub async fn last_deployment_config(&self, endpoint: &str) -> Result<Option<DeploymentConfig>, DeployError> {
        let d = self
            .sagemaker
            .describe_endpoint()
            .endpoint_name(endpoint)
            .send()
            .await
            .map_err(crate::aws::AwsError::from_sdk)?;
        Ok(d.last_deployment_config().cloned())
    }

    /// The policy `ask` gives: its own, or for RetainDeploymentConfig the endpoint's last one
    /// (refused in one line when there is none, or when alarms are asked on top of it).
    async fn asked_policy(&self, endpoint: &str, ask: &DeployAsk) -> Result<PolicyAsk, DeployError> {
        if !ask.retain_deployment {
            return Ok(PolicyAsk {
                policy: ask.policy,
                max_time_secs: ask.max_time_secs,
                alarms: ask.alarms.clone(),
            });
        }
        if ask.gate_alarms || !ask.alarms.is_empty() {
            return Err(DeployError::Invalid(vec![
                "retain-deployment-config: the last DeploymentConfig is sent as it is; alarms cannot be added to it (give the policy instead)".into(),
            ]));
        }
        match self.last_deployment_config(endpoint).await? {
            Some(last) => Ok(retained_policy(&last)),
            None => Err(DeployError::Invalid(vec![format!(
                "retain-deployment-config: {endpoint} has no LastDeploymentConfig to retain (give the policy instead)"
            )])),
        }
    }

    /// Plans `ask` on `info` and checks it: each rule's refusal ([`DeployError::Invalid`]), the
    /// rollback alarms, the configuration seen and the status. Nothing is sent.
    pub async fn plan_deployment(&self, info: EndpointInfo, ask: &DeployAsk) -> Result<DeployPlan, DeployError> {
        let asked = self.asked_policy(&info.name, ask).await?;
        let target = self.deployment_target(&info, &ask.config).await?;
        let facts = self
            .deploy_facts(&info, &target.name, &target.variants, ask.retain_all)
            .await?;
        let max_time_secs = asked
            .max_time_secs
            .unwrap_or_else(|| DeploySpec::default_max_time(&asked.policy, &facts));
        let gates = if ask.gate_alarms {
            self.plan_gate_alarms(&facts).await?
        } else {
            Vec::new()
        };
        let mut alarms = asked.alarms.clone();
        alarms.extend(gates.iter().map(|a| a.name.clone()));
        let spec = DeploySpec {
            policy: asked.policy,
            max_time_secs,
            alarms,
            retain_all: ask.retain_all,
            retain_deployment: ask.retain_deployment,
        };
        let refused = refusals(&spec, &facts);
        if !refused.is_empty() {
            return Err(DeployError::Invalid(refused));
        }
        self.check_rollback_alarms(&asked.alarms).await?;
        let expected = ask
            .expected_config
            .clone()
            .unwrap_or_else(|| facts.current_config.clone());
        let (endpoint, status) = (info.name.clone(), info.status.clone());
        if expected != facts.current_config {
            // Refused before a configuration is written; the start checks again.
            let actual = facts.current_config.clone();
            return Err(DeployError::Changed {
                endpoint,
                expected,
                actual,
                status,
            });
        }
        if status != "InService" {
            return Err(DeployError::NotInService { endpoint, status });
        }
        Ok(DeployPlan {
            info,
            facts,
            target,
            spec,
            gates,
            keep_alarms: ask.keep_alarms,
        })
    }

    /// Runs `plan`: writes its configuration (for `--model`), creates its gate alarms and starts
    /// it compare-and-swap; the gate alarms are deleted again when the start fails.
    pub async fn run_deployment(
        &self,
        plan: &DeployPlan,
        audited: &Audited,
        reason: Option<String>,
    ) -> Result<Started, DeployError> {
        if let Some(from) = &plan.target.derived_from {
            let variants = plan.target.variants.clone();
            self.create_derived_config(from, &plan.target.name, variants, audited, reason.clone())
                .await?;
        }
        self.create_gate_alarms(&plan.gates, plan.keep_alarms, audited, reason.clone())
            .await?;
        let req = DeployRequest {
            endpoint: plan.info.name.clone(),
            new_config: plan.target.name.clone(),
            expected_config: plan.facts.current_config.clone(),
            spec: plan.spec.clone(),
        };
        let started = self.start_deployment(&req, audited, reason.clone()).await;
        if started.is_err() {
            let _ = self.delete_gate_alarms(&plan.gate_names(), audited, reason).await;
        }
        started
    }
}

impl DeployPlan {
    /// The gate alarms' names.
    pub fn gate_names(&self) -> Vec<String> {
        self.gates.iter().map(|a| a.name.clone()).collect()
    }
}
