//! Read-only refuses every mutating CLI entry point — weights, promote (new, --resume,
//! --rollback), prewarm, invoke, tools call, mcp serve (its tools invoke endpoints) — with exit 5 and a reason, sending nothing; reads
//! stay allowed. The profile's `read_only = true` in config.toml does the same.

use super::support::{DEMO_EP, State};
use crate::common::{demo_config, run_cli_env, sandbox_with};

const MME: &str = "mcp-multi-model-endpoint";

fn entry_points() -> Vec<Vec<&'static str>> {
    vec![
        vec!["weights", DEMO_EP, "--set", "Canary=2", "--yes"],
        vec!["weights", DEMO_EP, "--instances", "Canary=2", "--yes"],
        vec!["promote", DEMO_EP, "--canary", "Canary", "--auto"],
        vec!["promote", DEMO_EP, "--resume"],
        vec!["promote", DEMO_EP, "--rollback"],
        vec!["prewarm", MME, "--all"],
        vec!["autoscaling", DEMO_EP, "--variant", "Stable", "--max", "8", "--yes"],
        vec!["invoke", DEMO_EP, "--body", "{\"inputs\": \"hi\"}"],
        vec!["tools", "call", "some-server", "some-tool"],
        vec!["mcp", "serve", "--demo-tools"],
    ]
}

#[tokio::test]
async fn read_only_refuses_every_mutation() {
    let sb = sandbox_with(demo_config()).await;
    let st = State::new();
    for args in entry_points() {
        let mut a = args.clone();
        a.push("--read-only");
        let r = st.cli(&sb, &a).await;
        assert_eq!(r.code, 5, "{a:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("read-only is on") && r.stderr.contains("nothing was sent"),
            "{a:?}: {}",
            r.stderr
        );
        assert_eq!(r.stderr.lines().count(), 1, "{a:?}: {}", r.stderr);
    }
    // Reads still work.
    for args in [
        vec!["weights", DEMO_EP, "--read-only"],
        vec!["promote", DEMO_EP, "--status", "--read-only"],
        vec!["audit", "--read-only"],
    ] {
        let r = st.cli(&sb, &args).await;
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert_eq!(sb.sandbox.request_count("InvokeEndpoint"), 0);
    assert!(st.audit().is_empty(), "nothing to audit");
}

#[tokio::test]
async fn the_profiles_read_only_setting_refuses_too() {
    let sb = sandbox_with(demo_config()).await;
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("sagedeck")).unwrap();
    std::fs::write(
        config.path().join("sagedeck/config.toml"),
        "[profiles.prod]\nread_only = true\n",
    )
    .unwrap();
    let xdg = config.path().to_str().unwrap();
    let env = [("XDG_CONFIG_HOME", xdg), ("AWS_PROFILE", "prod")];
    for args in entry_points() {
        let r = run_cli_env(&sb, &args, &env).await;
        assert_eq!(r.code, 5, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("read_only = true for this profile"), "{}", r.stderr);
    }
    // The default profile is not read-only: the same invocation goes through.
    let other = run_cli_env(
        &sb,
        &["invoke", DEMO_EP, "--body", "{\"inputs\": \"hi\"}"],
        &[("XDG_CONFIG_HOME", xdg)],
    )
    .await;
    assert_eq!(other.code, 0, "{}", other.stderr);
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
}

/// A config file that asks for read-only but cannot be read: unknown key, syntax error, wrong type.
const BROKEN: &[(&str, &str, &str)] = &[
    (
        "[profiles.default]\nread_only = true\nreadonly_typo = 1\n",
        "line 3",
        "readonly_typo",
    ),
    (
        "[profiles.default]\nread_only = true\ntheme = \"dark\n",
        "line 3",
        "theme",
    ),
    ("[profiles.default]\nread_only = \"yes\"\n", "line 2", "read_only"),
];

#[tokio::test]
async fn an_unreadable_config_fails_closed_for_every_mutation() {
    let sb = sandbox_with(demo_config()).await;
    for (text, line, key) in BROKEN {
        let config = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(config.path().join("sagedeck")).unwrap();
        let file = config.path().join("sagedeck/config.toml");
        std::fs::write(&file, text).unwrap();
        let xdg = config.path().to_str().unwrap();
        let env = [("XDG_CONFIG_HOME", xdg)];
        for args in entry_points() {
            let r = run_cli_env(&sb, &args, &env).await;
            assert_eq!(r.code, 2, "{text:?} {args:?}: {}", r.stderr);
            let names = r.stderr.contains(&file.display().to_string())
                && r.stderr.contains(line)
                && r.stderr.contains(key)
                && r.stderr.contains("nothing was sent");
            assert!(names, "{text:?} {args:?}: {}", r.stderr);
            assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        }
        // Reads go on, with a warning naming the file.
        let r = run_cli_env(&sb, &["weights", DEMO_EP], &env).await;
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stderr.contains("warning") && r.stderr.contains(line), "{}", r.stderr);
    }
    assert_eq!(sb.sandbox.request_count("UpdateEndpointWeightsAndCapacities"), 0);
    assert_eq!(sb.sandbox.request_count("InvokeEndpoint"), 0);
}
