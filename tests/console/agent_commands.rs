//! The Agent pane's `:agent-shape` and `:agent-session`, typed on the console's command line:
//! the next run's job carries the shape and the session, the question line shows them, and a
//! streamed run outside the OpenAI path is refused a new session.

use crossterm::event::KeyCode;

use sagedeck::tui::app::App;
use sagedeck::tui::config::AgentDefaults;
use sagedeck::tui::data::Data;
use sagedeck::tui::event::{AgentJob, AgentRun, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

use crate::common::tui::{press, render, tap};

/// Types `:LINE` and Enter.
fn command(app: &mut App, line: &str) {
    press(app, ":");
    press(app, line);
    tap(app, KeyCode::Enter);
}

/// The settings of the run the question line sends now.
fn asked(app: &mut App) -> AgentDefaults {
    app.take_jobs();
    tap(app, KeyCode::Char('a'));
    press(app, "What is the most played song on WZPZ?");
    tap(app, KeyCode::Enter);
    let jobs = app.take_jobs();
    jobs.into_iter()
        .find_map(|(_, j)| match j {
            Job::Agent(AgentJob::Run(AgentRun { settings, .. })) => Some(settings),
            _ => None,
        })
        .expect("a run was submitted")
}

#[test]
fn shape_and_session_commands_reach_the_next_run() {
    let mut app = App::new(Data::default(), Theme::default_theme());
    let settings = AgentDefaults {
        llm: Some("llm-tgi-chat".into()),
        servers: vec!["sagedeck-demo".into()],
        stream: Some(true),
        ..Default::default()
    };
    app.panes.agent.configure(settings, None);
    app.switch(Tab::Agent);

    command(&mut app, "agent-session new");
    assert_eq!(
        app.panes.agent.settings.session, None,
        "a streamed messages run cannot open one"
    );
    command(&mut app, "agent-shape openai");
    command(&mut app, "agent-session new");
    let screen = render(&mut app, 140, 40);
    assert!(screen.contains("LLM llm-tgi-chat (openai, session new)"), "{screen}");
    let sent = asked(&mut app);
    assert_eq!(
        (sent.shape.as_deref(), sent.session.as_deref()),
        (Some("openai"), Some("new"))
    );

    command(&mut app, "agent-session off");
    command(&mut app, "agent-shape xml");
    let sent = asked(&mut app);
    assert_eq!(
        (sent.shape.as_deref(), sent.session),
        (Some("openai"), None),
        "xml is refused"
    );
}
