//! What the real binary does with its output: written into a pipe whose reader has gone away
//! (`| head`, `| grep -m1`) it ends quietly with exit 0 — no panic, nothing on stderr but its
//! own progress lines — and a command that reads only a local file lists only the options it
//! uses in its help.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sagedeck::mcp::agent::Stop;
use sagedeck::mcp::agent::trace::{End, Header, Record, Step, TranscriptFile};
use sagedeck::sandbox::SandboxHandle;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::{cli_command, demo_config, invoke_times, poll_until, sandbox_with};

const CLASSIFIER: &str = "mcp-intent-classifier-prod";

/// Runs `sagedeck ARGS` with standard output a pipe whose read end is closed before it starts:
/// its first write meets EPIPE. Returns the exit code and stderr.
async fn into_closed_pipe(sb: &SandboxHandle, home: &Path, args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = cli_command(sb, home, args, &[])
        .stdout(writer)
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("sagedeck starts");
    let out = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
        .await
        .expect("sagedeck ends once its output is closed")
        .expect("sagedeck runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stderr)
}

fn quiet_end(what: &str, (code, stderr): &(i32, String)) {
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(!stderr.contains("Broken pipe"), "{what}: {stderr}");
    assert_eq!(*code, 0, "{what}: {stderr}");
}

/// A saved agent run with many steps (more than a pipe holds), ended by a final answer.
fn transcript(path: &Path) {
    let mut file = TranscriptFile::create(path).unwrap();
    let header = Header {
        run_id: "run-1".into(),
        question: "which endpoint is slowest?".into(),
        llm: "llm-tgi-chat".into(),
        shape: "messages".into(),
        servers: vec!["sagedeck-demo".into()],
        ..Default::default()
    };
    file.write(&Record::Run(header)).unwrap();
    for step in 1..=2000 {
        let s = Step {
            step,
            llm_ms: 12.5,
            ..Default::default()
        };
        file.write(&Record::Step(Box::new(s))).unwrap();
    }
    let end = End {
        stop: Stop::FinalAnswer,
        answer: Some("mcp-intent-classifier-prod".into()),
        detail: None,
        steps: 2000,
        tokens: 0,
        total_ms: 1.0,
    };
    file.write(&Record::End(end)).unwrap();
}

#[tokio::test]
async fn a_closed_output_ends_each_command_quietly() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let describe = into_closed_pipe(&sb, home.path(), &["describe", CLASSIFIER]).await;
    quiet_end("describe", &describe);
    assert_eq!(describe.1, "", "describe says nothing on stderr");

    let status = into_closed_pipe(&sb, home.path(), &["promote", CLASSIFIER, "--status", "--json"]).await;
    quiet_end("promote --status", &status);
    assert_eq!(status.1, "", "promote --status says nothing on stderr");

    let runs = tempfile::tempdir().unwrap();
    let saved = runs.path().join("run.jsonl");
    transcript(&saved);
    let replay = into_closed_pipe(&sb, home.path(), &["agent", "--replay", saved.to_str().unwrap()]).await;
    quiet_end("agent --replay", &replay);
    assert_eq!(replay.1, "", "agent --replay says nothing on stderr");

    poll_until(
        "the classifier's cold starts in its logs",
        Duration::from_secs(10),
        || async {
            let d = sb.sandbox.logs.data.lock();
            let group = format!("/aws/sagemaker/Endpoints/{CLASSIFIER}");
            d.groups
                .get(&group)
                .is_some_and(|g| !g.streams.is_empty())
                .then_some(())
        },
    )
    .await;
    let logs = into_closed_pipe(&sb, home.path(), &["logs", CLASSIFIER]).await;
    quiet_end("logs", &logs);
    // Its one line on stderr is the log group and its streams, written before the lines.
    assert_eq!(logs.1.lines().count(), 1, "{}", logs.1);
    assert!(logs.1.starts_with("/aws/sagemaker/Endpoints/"), "{}", logs.1);
}

#[tokio::test]
async fn logs_follow_ends_when_its_reader_goes_away() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let args = ["logs", CLASSIFIER, "--follow", "--interval", "1s"];
    let mut child = cli_command(&sb, home.path(), &args, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // `| grep -m1`: one line read, then the reader is gone.
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            invoke_times(&sb, CLASSIFIER, 1).await;
            if let Ok(Ok(Some(line))) = tokio::time::timeout(Duration::from_millis(500), lines.next_line()).await {
                return line;
            }
        }
    })
    .await
    .expect("a first line");
    assert!(first.contains('/'), "{first}");
    drop(lines);
    // New lines keep coming; the next one written meets the closed pipe.
    let status = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            invoke_times(&sb, CLASSIFIER, 1).await;
            if let Ok(Ok(status)) = tokio::time::timeout(Duration::from_millis(500), child.wait()).await {
                return status;
            }
        }
    })
    .await
    .expect("logs --follow ends once its reader is gone");
    let mut stderr = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr)
        .await
        .unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[tokio::test]
async fn local_file_commands_list_only_their_own_options() {
    let sb = sandbox_with(demo_config()).await;
    let home = tempfile::tempdir().unwrap();
    let help = |args: &'static [&'static str]| {
        let mut cmd = cli_command(&sb, home.path(), args, &[]);
        async move {
            let out = cmd.output().await.unwrap();
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    let report = help(&["variants-report", "--help"]).await;
    let audit = help(&["audit", "--help"]).await;
    for flag in ["--profile", "--region", "--endpoint-url", "--read-only", "--reason"] {
        assert!(!report.contains(flag), "variants-report --help lists {flag}:\n{report}");
        assert!(!audit.contains(flag), "audit --help lists {flag}:\n{audit}");
    }
    assert!(report.contains("--json") && report.contains("--baseline"), "{report}");
    assert!(!report.contains("--audit-file"), "{report}");
    assert!(
        audit.contains("--json") && audit.contains("--audit-file") && audit.contains("--since"),
        "{audit}"
    );
    // An AWS-facing command still lists them.
    let describe = help(&["describe", "--help"]).await;
    assert!(
        describe.contains("--profile") && describe.contains("--read-only"),
        "{describe}"
    );
}
