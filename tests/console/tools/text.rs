//! Text from servers: a long tool description, escape sequences written out.

use super::*;

#[test]
fn a_long_tool_description_shows_whole_or_says_where_to_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    let mut servers = servers();
    let long = "Classifies the intent of a customer's message with the SageMaker endpoint behind it and \
                returns the intent with its score; call it before routing the conversation to an agent \
                or a queue (lastword)";
    servers[0].tools[0].description = Some(long.to_string().into());
    app.panes.tools.set_servers(servers);
    assert!(app.panes.tools.select("sagedeck-demo", "classify_intent"));
    // The Tool box's rows (the right column's first box), borders and padding removed, joined.
    let tool_box = |s: &str| -> String {
        s.lines()
            .skip(3)
            .take_while(|l| !l.contains("Arguments"))
            .filter_map(|l| l.split('│').nth(3))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    };
    // At 140x40 the box has room: the description is whole, the form keeps its place.
    let s = screen_sized(&mut app, 140, 40);
    insta::assert_snapshot!("tools_long_description_140x40", s);
    assert!(
        tool_box(&s).contains("call it before routing the conversation to an agent or a queue (lastword)"),
        "{s}"
    );
    assert!(s.contains("Arguments"), "{s}");
    // At 80x24 it is cut where it says how to read it whole; `d` shows the whole tool.
    let s = screen_sized(&mut app, 80, 24);
    insta::assert_snapshot!("tools_long_description_80x24", s);
    let shown = tool_box(&s);
    assert!(
        shown.contains("Classifies the intent") && shown.contains("… d: the whole tool"),
        "{s}"
    );
    assert!(s.contains("Arguments"), "{s}");
    for _ in 0..3 {
        if app.panes.tools.focus() != Focus::Tools {
            app.on_key(key(KeyCode::Esc));
        }
    }
    assert_eq!(app.panes.tools.focus(), Focus::Tools);
    press(&mut app, "d");
    assert!(matches!(app.overlay, Some(Overlay::Describe(_))));
    let s = screen_sized(&mut app, 80, 24);
    assert!(s.contains("(lastword)"), "the describe overlay wraps it whole:\n{s}");
}

#[test]
fn server_text_is_drawn_with_its_escape_sequences_written_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_in(dir.path(), false);
    let mut now = servers();
    now[0].tools[1] = tool(
        "search",
        pydantic_search_schema(),
        ToolAnnotations::new().read_only(true),
    )
    .with_title("Search\x1b]0;pwned\x07");
    app.on_event(AppEvent::McpServers {
        servers: now,
        logs: vec![],
    });
    let r = RenderedResult {
        is_error: false,
        blocks: vec![Block::Text {
            text: "notes\x1b]52;c;ZWNobw==\x07 clear\x1b[2J\x1b[H c1\u{9b}31m".into(),
        }],
        structured: None,
        schema_errors: None,
    };
    let s = searched(&mut app, r);
    for want in [
        "Search\\x1b]0;pwned\\x07",
        "notes\\x1b]52;c;ZWNobw==\\x07 clear\\x1b[2J\\x1b[H c1\\u{9b}31m",
    ] {
        assert!(s.contains(want), "{want} not in\n{s}");
    }
}
