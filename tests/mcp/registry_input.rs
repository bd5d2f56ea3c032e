//! An mcpServers file whose URL or header cannot be sent is invalid input: exit 2 and one line
//! naming the server and the field, before anything is sent, never rmcp's or reqwest's types.

use serde_json::json;

use crate::common::{run_cli, sandbox};

#[tokio::test]
async fn a_bad_url_or_header_is_invalid_input_naming_server_and_field() {
    let sb = sandbox().await;
    let dir = tempfile::tempdir().unwrap();
    for (server, needle) in [
        (json!({"url": "http//127.0.0.1:9/mcp", "transport": "http"}), "`url`"),
        (json!({"url": "ftp://127.0.0.1/mcp", "transport": "http"}), "`url`"),
        (json!({"url": "http://exa mple.com/sse"}), "`url`"),
        (
            json!({"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer sec\nret-77"}}),
            "`headers`: the value of Authorization",
        ),
        (
            json!({"url": "http://127.0.0.1:9/sse", "headers": {"X Api Key": "secret-77"}}),
            "`headers`: \"X Api Key\"",
        ),
    ] {
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, json!({"mcpServers": {"tools-prod": server}}).to_string()).unwrap();
        let cfg = path.to_string_lossy().into_owned();
        for args in [
            vec!["tools", "list", "--mcp-config", &cfg],
            vec!["tools", "call", "tools-prod", "anything", "--mcp-config", &cfg],
        ] {
            let r = run_cli(&sb, &args).await;
            assert_eq!(r.code, 2, "{server}: {}", r.stderr);
            let line = r.stderr.trim_end();
            assert!(!line.contains('\n'), "one line: {line}");
            assert!(
                line.contains("server `tools-prod`") && line.contains(needle),
                "{server}: {line}"
            );
            for internal in ["reqwest", "rmcp", "Builder", "InvalidHeader", "secret-77", "ret-77"] {
                assert!(!line.contains(internal), "{internal} in: {line}");
            }
        }
    }
}
