//! The Invoke pane on an endpoint that hosts inference components, through the real `App`: the
//! components are asked for once when not read yet, the Target model row becomes the Component
//! (cycled with `m` and the arrows), a call names the chosen one, a call without one is refused
//! inline, and the two component error classes are said with the console's keys. A snapshot at
//! 120×30 shows the row.

use std::time::Duration;

use crossterm::event::KeyCode;

use sagedeck::aws::AwsError;
use sagedeck::aws::components::{Component, Copies};
use sagedeck::aws::endpoints::kind::EndpointKind;
use sagedeck::aws::invoke::call::{InvokeFailure, InvokeSpec};
use sagedeck::tui::app::App;
use sagedeck::tui::data::{ComponentsRead, Data};
use sagedeck::tui::event::{AppEvent, FleetJob, Job};
use sagedeck::tui::panes::Tab;
use sagedeck::tui::panes::invoke::Field;
use sagedeck::tui::theme::Theme;
use sagedeck::tui::widgets::toasts::Toasts;

use crate::common::builders::{endpoint, shared, variant};
use crate::common::tui::{self, ctrl, key, press};

const IC_EP: &str = "llm-components";

fn component(name: &str, desired: i32) -> Component {
    Component {
        name: name.into(),
        endpoint: IC_EP.into(),
        variant: "AllTraffic".into(),
        status: "InService".into(),
        model: Some("chat-model".into()),
        copies: Copies {
            desired,
            current: desired,
        },
        ..Default::default()
    }
}

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
        selected: Some(IC_EP.into()),
        ..Default::default()
    };
    let mut app = App::new(data, Theme::default_theme());
    app.tab = Tab::Invoke;
    app
}

fn read(app: &mut App) {
    let components = vec![component("chat", 1), component("summary", 0)];
    app.on_event(AppEvent::Components {
        endpoint: IC_EP.into(),
        result: Ok(Box::new(ComponentsRead {
            components,
            ..Default::default()
        })),
    });
}

fn jobs(app: &mut App) -> (Vec<InvokeSpec>, usize) {
    let mut invokes = Vec::new();
    let mut reads = 0;
    for (_, job) in app.take_jobs() {
        match job {
            Job::Fleet(FleetJob::Invoke { spec, .. }) => invokes.push(spec),
            Job::Fleet(FleetJob::Components { endpoint }) if endpoint == IC_EP => reads += 1,
            _ => {}
        }
    }
    (invokes, reads)
}

#[test]
fn the_component_is_read_chosen_cycled_and_sent() {
    let mut app = app();
    // Before the components are read, a call is refused inline, and the read is asked for once.
    app.on_key(ctrl('s'));
    let (invokes, reads) = jobs(&mut app);
    assert!(invokes.is_empty());
    assert_eq!(reads, 1);
    assert!(app.panes.invoke.notice().unwrap().contains("pick one (m)"));
    app.on_key(ctrl('s'));
    assert_eq!(jobs(&mut app).1, 0, "the read is asked for once");

    read(&mut app);
    press(&mut app, "m");
    assert_eq!(app.panes.invoke.focus(), Some(Field::Component));
    assert_eq!(app.panes.invoke.form().unwrap().component.as_deref(), Some("chat"));
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.panes.invoke.form().unwrap().component.as_deref(), Some("summary"));
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.panes.invoke.form().unwrap().component.as_deref(), Some("chat"));
    app.on_key(key(KeyCode::Enter));
    app.on_key(ctrl('s'));
    let (invokes, _) = jobs(&mut app);
    assert_eq!(invokes.len(), 1);
    assert_eq!(invokes[0].inference_component.as_deref(), Some("chat"));
    assert_eq!(invokes[0].target_model, None);
}

#[test]
fn the_component_classes_are_said_with_the_consoles_keys() {
    let mut app = app();
    read(&mut app);
    app.on_key(ctrl('s'));
    let id = app
        .take_jobs()
        .into_iter()
        .find_map(|(id, j)| matches!(j, Job::Fleet(FleetJob::Invoke { .. })).then_some(id))
        .expect("an invocation");
    let failure = InvokeFailure {
        error: AwsError::NoCapacity {
            message: "Inference Component has no capacity to process this request.".into(),
            endpoint: Some(IC_EP.into()),
            component: Some("chat".into()),
        },
        attempts: 1,
        total: Duration::from_millis(12),
    };
    app.on_event(AppEvent::Invoked {
        id,
        index: 0,
        result: Err(failure),
    });
    let said: Vec<String> = app.toasts.log.iter().map(|e| e.text.clone()).collect();
    let line = said
        .iter()
        .find(|t| t.contains("no copies"))
        .expect("the zero-copy line");
    assert!(
        line.contains("Components pane (w)") && !line.contains("--wait-for-capacity"),
        "{line}"
    );
    app.toasts = Toasts::default();
    let screen = tui::render(&mut app, 120, 30);
    assert!(screen.contains("no_capacity"), "{screen}");
}

#[test]
fn snapshot_component_row() {
    let mut app = app();
    read(&mut app);
    press(&mut app, "m");
    app.on_key(key(KeyCode::Right));
    app.toasts = Toasts::default();
    insta::assert_snapshot!("invoke_component_row", tui::render(&mut app, 120, 30));
}
