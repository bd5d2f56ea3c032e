//! The Agent pane's component: `:agent-llm` on an endpoint whose components are read picks the
//! first, `:agent-component` steps through them, refuses one the endpoint does not host and
//! clears with `none`; the pane's header names the LLM and its component.

use crossterm::event::KeyCode;

use sagedeck::aws::components::Component;
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::tui::app::App;
use sagedeck::tui::data::{ComponentsRead, Data};
use sagedeck::tui::event::AppEvent;
use sagedeck::tui::panes::Tab;
use sagedeck::tui::theme::Theme;

use crate::common::builders::{endpoint, shared, variant};
use crate::common::tui::{self, press, tap};

const IC_EP: &str = "llm-components";

fn app() -> App {
    let data = Data {
        context: tui::context(),
        inventory: shared(vec![
            endpoint(IC_EP)
                .variants([variant("AllTraffic")])
                .kind(EndpointKind::InferenceComponents)
                .build(),
        ]),
        loaded: true,
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    let named = |name: &str| Component {
        name: name.into(),
        endpoint: IC_EP.into(),
        status: "InService".into(),
        ..Default::default()
    };
    app.on_event(AppEvent::Components {
        endpoint: IC_EP.into(),
        result: Ok(Box::new(ComponentsRead {
            components: vec![named("chat"), named("summary")],
            ..Default::default()
        })),
    });
    app.switch(Tab::Agent);
    app
}

fn command(app: &mut App, text: &str) {
    press(app, text);
    tap(app, KeyCode::Enter);
}

#[test]
fn the_agents_component_is_chosen_from_the_llm_endpoints() {
    let mut app = app();
    command(&mut app, &format!(":agent-llm {IC_EP}"));
    let ic = |app: &App| app.panes.agent.settings.inference_component.clone();
    assert_eq!(ic(&app).as_deref(), Some("chat"), "the first of the endpoint's");
    command(&mut app, ":agent-component");
    assert_eq!(ic(&app).as_deref(), Some("summary"));
    command(&mut app, ":agent-component");
    assert_eq!(ic(&app).as_deref(), Some("chat"), "it wraps around");

    command(&mut app, ":agent-component nope");
    assert_eq!(
        ic(&app).as_deref(),
        Some("chat"),
        "one the endpoint does not host is refused"
    );
    let said: Vec<String> = app.toasts.log.iter().map(|e| e.text.clone()).collect();
    assert!(
        said.iter()
            .any(|t| t.contains("hosts no component nope (it hosts: chat, summary)")),
        "{said:?}"
    );

    command(&mut app, ":agent-component summary");
    app.toasts = Default::default();
    let screen = tui::render(&mut app, 140, 40);
    assert!(screen.contains(&format!("LLM {IC_EP}/summary")), "{screen}");

    command(&mut app, ":agent-component none");
    assert_eq!(ic(&app), None);
}
