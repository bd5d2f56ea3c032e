//! The promotion judge on a shadow against production, in the console: while the Variants tab
//! shows an endpoint with a shadow, the judge (`sagedeck shadow`'s: Mann-Whitney on one-minute
//! series of the last hour, inconclusive = hold) is asked in the background when the tab is
//! shown and again with each fleet metrics refresh, at most once a minute per endpoint; its
//! verdict goes on the shadow's line.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::aws::promote::shadow::ShadowReport;
use crate::tui::data::Data;
use crate::tui::event::{AppEvent, FleetJob};
use crate::tui::panes::Outbox;

/// The least time between two judgements of one endpoint.
const EVERY: Duration = Duration::from_secs(60);

/// The verdicts of the shadows judged this session, by endpoint.
#[derive(Debug, Default)]
pub struct ShadowJudges {
    /// The last report, or why the judge could not run.
    verdicts: HashMap<String, Result<ShadowReport, String>>,
    /// When each endpoint was last asked for.
    asked: HashMap<String, Instant>,
}

impl ShadowJudges {
    /// The last verdict on `endpoint`'s shadow.
    pub fn verdict(&self, endpoint: &str) -> Option<&Result<ShadowReport, String>> {
        self.verdicts.get(endpoint)
    }

    /// Asks for a judgement of the shown endpoint's shadow, unless one was asked for within
    /// the last minute.
    pub fn ask(&mut self, data: &Data, out: &mut Outbox) {
        let Some(e) = super::shown_endpoint(data).filter(|e| !e.shape.shadow_variants.is_empty()) else {
            return;
        };
        if self.asked.get(&e.name).is_some_and(|t| t.elapsed() < EVERY) {
            return;
        }
        self.asked.insert(e.name.clone(), Instant::now());
        out.job(FleetJob::ShadowJudge {
            endpoint: e.name.clone(),
        });
    }

    /// A verdict came in; a fleet metrics refresh while the tab is shown asks again.
    pub fn on_event(&mut self, ev: &AppEvent, data: &Data, out: &mut Outbox, visible: bool) {
        match ev {
            AppEvent::ShadowJudged { endpoint, result } => {
                let verdict = result.as_ref().map(|r| (**r).clone()).map_err(|e| e.to_string());
                self.verdicts.insert(endpoint.clone(), verdict);
            }
            AppEvent::Metrics { detail: false, .. } if visible => self.ask(data, out),
            _ => {}
        }
    }
}
