//! The console: its state machine driven by keys and background events through the real `App`
//! (no terminal), insta snapshots of every pane on a `TestBackend`, the background worker against
//! the sandbox over the wire, and the real binary in tmux end to end.

#[path = "../common/mod.rs"]
mod common;

mod activity_team;
mod agent;
mod agent_commands;
mod agent_component;
mod app;
mod components;
mod components_tmux;
mod components_wire;
mod concurrency;
mod demo_oauth;
mod demo_team;
mod deploy;
mod deploy_attach;
mod deploy_form;
mod deploy_tmux;
mod e2e;
mod first_rows;
mod fleet_scale;
mod gate;
mod guardrails;
mod invocation_log;
mod invoke;
mod invoke_async;
mod invoke_component;
mod invoke_openai;
mod logs_timeline;
mod models_latency;
mod newcomer;
mod newcomer_fixes;
mod newcomer_tmux;
mod plan_e2e;
mod plan_lock;
mod regions;
mod sampling_dialog;
mod scaling;
mod scaling_components;
mod scaling_serverless;
mod schema_form_props;
mod shapes;
mod shapes_boto3;
mod throttled;
mod tools;
mod tools_catalog;
mod tools_login;
mod tools_task;
mod variants;
mod worker;
