//! The console's panes. Each pane keeps its own UI state, reads the shared [`Data`], and answers
//! keys by changing its state and putting requests in the [`Outbox`]; it never touches the network.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::data::Data;
use super::event::{AppEvent, Job, JobKind};
use super::theme::Theme;
use super::widgets::Overlay;
use super::widgets::toasts::Level;

/// Declares the console's panes in tab order, once: each line names the pane's tab, its folder
/// (a module of this one) and its type. It generates the modules, the [`Tab`] enum (number keys
/// follow this order) and [`Panes`], the table the app holds, with typed fields and iteration in
/// tab order. A new pane is a folder that implements [`Pane`] plus one line here.
macro_rules! panes {
    ($($tab:ident => $field:ident: $ty:ident,)+) => {
        $(pub mod $field;)+

        /// The tabs, in their number-key order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tab {
            $(
                #[doc = concat!("The `", stringify!($field), "` pane.")]
                $tab,
            )+
        }

        impl Tab {
            /// All tabs in order.
            pub const ALL: &'static [Tab] = &[$(Tab::$tab),+];

            /// The tab's title (its pane's `TITLE`).
            pub fn title(self) -> &'static str {
                match self {
                    $(Tab::$tab => $field::$ty::TITLE,)+
                }
            }
        }

        /// Every pane of the console, one field each (in tab order).
        #[derive(Default)]
        pub struct Panes {
            $(
                #[doc = concat!("The `", stringify!($field), "` pane.")]
                pub $field: $field::$ty,
            )+
        }

        impl Panes {
            /// The pane shown for `tab`.
            pub fn get(&self, tab: Tab) -> &dyn Pane {
                match tab {
                    $(Tab::$tab => &self.$field,)+
                }
            }

            /// The pane shown for `tab`, to change it.
            pub fn get_mut(&mut self, tab: Tab) -> &mut dyn Pane {
                match tab {
                    $(Tab::$tab => &mut self.$field,)+
                }
            }

            /// Every pane with its tab, in tab order.
            pub fn all_mut(&mut self) -> Vec<(Tab, &mut dyn Pane)> {
                vec![$((Tab::$tab, &mut self.$field as &mut dyn Pane)),+]
            }
        }
    };
}

panes! {
    Endpoints => endpoints: EndpointsPane,
    Variants => variants: VariantsPane,
    Models => models: ModelsPane,
    Latency => latency: LatencyPane,
    Invoke => invoke: InvokePane,
    Tools => tools: ToolsPane,
    Activity => activity: ActivityPane,
    Agent => agent: AgentPane,
    Logs => logs: LogsPane,
    Timeline => timeline: TimelinePane,
    Scaling => scaling: ScalingPane,
    Components => components: ComponentsPane,
}

impl Tab {
    /// The `:` command that opens it.
    pub fn command(self) -> String {
        self.title().to_ascii_lowercase()
    }

    /// Position (0-based).
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }

    /// The tab a number key opens (1 to 9, then 0 for the tenth).
    pub fn for_key(c: char) -> Option<Tab> {
        (0..Tab::ALL.len())
            .find(|i| super::widgets::header::tab_key(*i) == Some(c))
            .map(|i| Tab::ALL[i])
    }
}

/// What a pane asks of the app while handling a key.
#[derive(Default)]
pub struct Outbox {
    /// Background jobs to start.
    pub jobs: Vec<Job>,
    /// Toasts to show.
    pub toasts: Vec<(Level, String)>,
    /// An overlay to open.
    pub overlay: Option<Overlay>,
    /// A tab to switch to.
    pub switch_to: Option<Tab>,
    /// Text to copy to the clipboard.
    pub copy: Option<String>,
}

impl Outbox {
    /// Queues a job.
    pub fn job(&mut self, job: impl Into<Job>) {
        self.jobs.push(job.into());
    }

    /// Queues a toast.
    pub fn toast(&mut self, level: Level, text: impl Into<String>) {
        self.toasts.push((level, text.into()));
    }

    /// Asks the read-only gate about a mutation (`what`, as its job's [`crate::tui::event::Effect`]
    /// names it) before starting on it on the selected endpoint: true (and a toast saying why)
    /// when it is refused.
    pub fn refused(&mut self, data: &Data, what: &str) -> bool {
        // In a multi-region view the selected endpoint's profile may be read-only.
        self.refused_on(data, what, data.selected.as_deref())
    }

    /// [`Outbox::refused`] for a mutation on `endpoint` (None: on the console's own profile, as
    /// tool calls are).
    pub fn refused_on(&mut self, data: &Data, what: &str, endpoint: Option<&str>) -> bool {
        match data.refusal_on(Some(what), endpoint) {
            Some(why) => {
                self.toast(Level::Warn, why);
                true
            }
            None => false,
        }
    }
}

pub use super::widgets::KeyHint;

/// Whether `key` is Ctrl-`c`.
pub fn ctrl(key: &KeyEvent, c: char) -> bool {
    key.modifiers.contains(crossterm::event::KeyModifiers::CONTROL) && key.code == crossterm::event::KeyCode::Char(c)
}

/// A `:` command a pane owns (besides the one that opens its tab).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaneCommand {
    /// The command's name.
    pub name: &'static str,
    /// Whether it takes an argument.
    pub takes_arg: bool,
    /// What it does, for help.
    pub help: &'static str,
}

/// The interface every pane implements. A pane owns its state, its keys, what it draws, the
/// help lines and `:` commands it adds, and the background events it consumes; it never sees
/// the whole app: it reads the shared [`Data`] and asks for jobs, toasts, overlays and tab
/// switches through the [`Outbox`].
pub trait Pane {
    /// Answers a key; returns false when the key is not the pane's (the app handles it).
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool;
    /// Draws the pane.
    fn render(&mut self, frame: &mut Frame, area: Rect, data: &Data, theme: &Theme);
    /// The pane's keys now, for the footer and help (a pane's open dialog gives its own).
    fn keys(&self, data: &Data) -> Vec<KeyHint>;
    /// Further lines for the help overlay: keys that are not always in the footer.
    fn help(&self) -> Vec<KeyHint> {
        Vec::new()
    }
    /// The `:` commands the pane owns.
    fn commands(&self) -> &'static [PaneCommand] {
        &[]
    }
    /// The arguments `:NAME` takes, for Tab completion (none by default).
    fn command_args(&self, _name: &str) -> &'static [&'static str] {
        &[]
    }
    /// Runs one of [`Pane::commands`]; false when it is not the pane's.
    fn run_command(&mut self, _name: &str, _arg: Option<&str>, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
    /// Whether the pane is capturing text (so global single-letter keys go to it).
    fn capturing_text(&self) -> bool {
        false
    }
    /// Called when the pane becomes visible.
    fn on_show(&mut self, _data: &mut Data, _out: &mut Outbox) {}
    /// A background event; every pane sees every event and takes what is its own. `visible`
    /// says whether the pane is on screen.
    fn on_event(&mut self, _ev: &AppEvent, _data: &mut Data, _out: &mut Outbox, _visible: bool) {}
    /// A job was queued under `id` (by any pane or the app).
    fn on_submitted(&mut self, _id: u64, _job: &Job) {}
    /// A job ended (finished, failed or cancelled); its kind when the app saw it start.
    fn on_finished(&mut self, _id: u64, _kind: Option<JobKind>, _cancelled: bool, _out: &mut Outbox) {}
    /// The once-a-second tick.
    fn on_tick(&mut self, _visible: bool, _data: &Data, _out: &mut Outbox) {}
    /// A refresh was asked (`r`, or the metrics cadence): the pane requests what it shows.
    fn on_refresh(&mut self, _visible: bool, _data: &Data, _out: &mut Outbox) {}
    /// The operator asked to quit: true holds the quit (the pane asked something first).
    fn hold_quit(&mut self, _data: &mut Data, _out: &mut Outbox) -> bool {
        false
    }
}
