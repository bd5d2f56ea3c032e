//! The audit log on disk: its directory is created 0700 and the file 0600 whatever the umask
//! (a loose file from before is tightened), and no credential-shaped value reaches a line.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{cli_command, demo_config, sandbox_with};

/// Runs `sagedeck ARGS` (as `cli_command` prepares it) through `sh -c` under `umask 000`.
async fn run_under_umask_000(
    sb: &sagedeck::sandbox::SandboxHandle,
    home: &Path,
    args: &[&str],
) -> std::process::Output {
    let base = cli_command(sb, home, args, &[]);
    let base = base.as_std();
    let mut sh = tokio::process::Command::new("sh");
    sh.arg("-c")
        .arg("umask 000 && exec \"$0\" \"$@\"")
        .arg(base.get_program())
        .args(base.get_args())
        .env_clear()
        .envs(base.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .stdin(std::process::Stdio::null());
    sh.output().await.expect("sh runs")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn audit_files_are_private_whatever_the_umask_and_hold_no_credentials() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let reason = "rotated ASIAABCDEFGHIJKLMNOP secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let args = [
        "weights",
        "mcp-intent-classifier-prod",
        "--set",
        "Canary=2",
        "--yes",
        "--wait",
        "--reason",
        reason,
    ];
    let out = run_under_umask_000(&sb, home.path(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    let state = home.path().join(".local/state/sagedeck");
    let audit = state.join("audit.jsonl");
    assert_eq!(mode(&state), 0o700, "the state directory");
    assert_eq!(mode(&home.path().join(".local/state")), 0o700, "a created parent");
    assert_eq!(mode(&audit), 0o600, "the audit file");
    let text = std::fs::read_to_string(&audit).unwrap();
    assert_eq!(text.lines().count(), 2, "intent and result:\n{text}");
    assert!(text.contains("rotated [redacted] secret=[redacted]"), "{text}");
    assert!(
        !text.contains("ASIAABCDEFGHIJKLMNOP") && !text.contains("wJalrXUtnFEMI"),
        "{text}"
    );

    let loose = home.path().join("elsewhere/audit.jsonl");
    std::fs::create_dir_all(loose.parent().unwrap()).unwrap();
    std::fs::write(&loose, "").unwrap();
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o666)).unwrap();
    let file = loose.to_string_lossy().into_owned();
    let mut args = args.to_vec();
    args.extend(["--audit-file", &file]);
    args[3] = "Canary=3";
    let out = run_under_umask_000(&sb, home.path(), &args).await;
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&loose), 0o600, "a loose audit file is tightened");
}
