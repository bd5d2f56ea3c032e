//! Agent: ask a question of an LLM endpoint that drives MCP tools (the loop of `mcp::agent`, run
//! by the worker as [`AgentJob::Run`]) and watch the conversation grow step by step, with a
//! waterfall of LLM and tool time per step. Enter opens a step's raw prompt, raw reply, parsed
//! call and tool result; in `ask` approval mode each call waits for y / n / e (edit the
//! arguments); Esc cancels a run; `h` lists this session's runs and the transcripts saved under
//! the state directory, `R` re-runs the shown one from the selected step; `g` goes to the tool's
//! endpoint where the tool names one, else to the LLM endpoint. The LLM endpoint, request shape,
//! template, servers and approval mode come from `[agent]` of config.toml (per profile).

mod component;
mod keys;
mod runs;
mod settings;
mod view;

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use serde_json::Value;

use super::{KeyHint, Outbox, Pane, PaneCommand};
use crate::mcp::agent::{ApprovalRequest, Decision, End, Event, Header, Message, Step, Transcript};
use crate::tui::config::AgentDefaults;
use crate::tui::data::Data;
use crate::tui::event::{AgentJob, AgentRun, AgentUpdate, AppEvent, Job, JobKind, RUNNING_THE_AGENT};
use crate::tui::theme::Theme;
use crate::tui::widgets::toasts::Level;
pub use runs::saved_runs;

/// The step in progress: what has streamed, the call being sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    /// Step number.
    pub step: u32,
    /// Streamed reply so far.
    pub text: String,
    /// The tool call being sent (tool, arguments).
    pub calling: Option<(String, Value)>,
}

/// One run: live, finished, or read from a saved transcript.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// The job running it (None: read from a file).
    pub job: Option<u64>,
    /// The question.
    pub question: String,
    /// The header, once known.
    pub header: Option<Header>,
    /// Finished steps.
    pub steps: Vec<Step>,
    /// The step in progress.
    pub live: Option<Live>,
    /// How it ended.
    pub end: Option<End>,
    /// Why it could not run, or that it was cancelled before it said so.
    pub error: Option<String>,
    /// Whether its job is in flight.
    pub running: bool,
    /// The saved transcript it was read from.
    pub file: Option<PathBuf>,
    /// The run (id) and step it re-runs.
    pub rerun_of: Option<(String, u32)>,
    /// Cancelled by the operator (a call waiting for approval then ends as denied).
    pub cancelled: bool,
}

impl Run {
    /// The run as a transcript (for a re-run).
    pub fn transcript(&self) -> Transcript {
        Transcript {
            header: self.header.clone().unwrap_or_else(|| Header {
                question: self.question.clone(),
                ..Default::default()
            }),
            steps: self.steps.clone(),
            end: self.end.clone(),
        }
    }

    fn from_transcript(t: Transcript, file: Option<PathBuf>) -> Run {
        Run {
            question: t.header.question.clone(),
            rerun_of: t.header.rerun_of.clone(),
            header: Some(t.header),
            steps: t.steps,
            end: t.end,
            file,
            ..Default::default()
        }
    }
}

/// A tool call waiting for the operator.
#[derive(Debug)]
pub struct Approval {
    /// The run's job.
    pub job: u64,
    /// The call.
    pub request: ApprovalRequest,
    /// Where the decision goes.
    answer: std::sync::mpsc::Sender<Decision>,
    /// The arguments being edited (JSON text), when editing.
    pub editing: Option<String>,
}

/// What has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    /// The conversation (↑↓ pick a step).
    #[default]
    Conversation,
    /// Typing the question.
    Input,
    /// Editing the selected step's last user message, to re-run from that step with it.
    EditStep,
    /// A step's detail (scrolls).
    Detail,
    /// The list of runs.
    Runs,
}

/// The Agent pane.
#[derive(Default)]
pub struct AgentPane {
    /// Settings of new runs.
    pub settings: AgentDefaults,
    /// Where transcripts are saved and read (None: nowhere).
    pub runs_dir: Option<PathBuf>,
    /// The question being typed.
    pub input: String,
    /// The step message being edited (line breaks shown as ⏎).
    pub edit: String,
    /// What has the keys.
    pub focus: Focus,
    /// Runs: this session's and those read from files, oldest first.
    pub runs: Vec<Run>,
    /// The run shown.
    pub shown: usize,
    /// The selected step (index into the shown run's steps).
    pub cursor: usize,
    /// Detail scroll.
    pub scroll: u16,
    /// The runs list cursor.
    pub list_cursor: usize,
    /// The call waiting for a decision.
    pub approval: Option<Approval>,
    /// The tools of the MCP servers (server, tool), for `g`.
    tools: Vec<(String, rmcp::model::Tool)>,
}

impl AgentPane {
    /// Title.
    pub const TITLE: &'static str = "Agent";

    /// Sets the defaults of new runs and where transcripts live.
    pub fn configure(&mut self, settings: AgentDefaults, runs_dir: Option<PathBuf>) {
        self.settings = settings;
        self.runs_dir = runs_dir;
    }

    /// The run shown.
    pub fn shown_run(&self) -> Option<&Run> {
        self.runs.get(self.shown)
    }

    /// The selected step of the shown run.
    pub fn selected_step(&self) -> Option<&Step> {
        self.shown_run()?.steps.get(self.cursor)
    }

    /// Asks the question typed (the gate is asked first: read-only refuses at once).
    fn ask(&mut self, data: &Data, out: &mut Outbox) {
        let question = self.input.trim().to_string();
        if question.is_empty() {
            out.toast(Level::Info, "type a question first");
            return;
        }
        if out.refused(data, RUNNING_THE_AGENT) {
            return;
        }
        self.focus = Focus::Conversation;
        self.input.clear();
        out.job(AgentJob::Run(AgentRun {
            question,
            settings: self.settings.clone(),
            rerun: None,
            edited: None,
            transcript_path: self.new_file(),
            reason: None,
        }));
    }

    /// A new transcript file under the runs directory (named by time, so they sort).
    fn new_file(&self) -> Option<PathBuf> {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let n = self.runs.len();
        Some(self.runs_dir.as_ref()?.join(format!("run-{ms}-{n}.jsonl")))
    }

    /// Re-runs the shown run from the selected step (with the edited conversation, if any).
    fn rerun(&mut self, data: &Data, out: &mut Outbox, edited: Option<Vec<Message>>) {
        let Some((run, step)) = self.shown_run().zip(self.selected_step()) else {
            out.toast(Level::Info, "no step to re-run from");
            return;
        };
        if run.running || out.refused(data, RUNNING_THE_AGENT) {
            return;
        }
        // The LLM of the settings (`:agent-llm` changes it), else the run's own.
        let mut settings = self.settings.clone();
        if settings.llm.is_none() {
            settings.llm = run.header.as_ref().map(|h| h.llm.clone()).filter(|l| !l.is_empty());
        }
        out.job(AgentJob::Run(AgentRun {
            question: run.question.clone(),
            settings,
            rerun: Some((Box::new(run.transcript()), step.step)),
            edited,
            transcript_path: self.new_file(),
            reason: None,
        }));
    }

    /// Starts editing the selected step's last user message.
    fn start_edit(&mut self, out: &mut Outbox) {
        let text = self
            .selected_step()
            .and_then(|s| s.messages.iter().rev().find(|m| m.role == "user"))
            .map(|m| m.content.replace('\n', "⏎"));
        match text {
            Some(t) => {
                self.edit = t;
                self.focus = Focus::EditStep;
            }
            None => out.toast(Level::Info, "no step with a user message to edit"),
        }
    }

    /// Re-runs from the selected step with its last user message replaced by the edit.
    fn rerun_edited(&mut self, data: &Data, out: &mut Outbox) {
        let Some(step) = self.selected_step() else { return };
        let mut messages = step.messages.clone();
        if let Some(m) = messages.iter_mut().rev().find(|m| m.role == "user") {
            m.content = self.edit.replace('⏎', "\n");
        }
        self.focus = Focus::Conversation;
        self.rerun(data, out, Some(messages));
    }

    /// Answers the call waiting (dropping the dialog).
    fn decide(&mut self, decision: Decision) {
        if let Some(a) = self.approval.take() {
            let _ = a.answer.send(decision);
        }
    }

    fn run_of(&mut self, job: u64) -> Option<&mut Run> {
        self.runs.iter_mut().find(|r| r.job == Some(job))
    }

    fn on_update(&mut self, id: u64, update: &AgentUpdate) {
        let shown = self.shown_run().and_then(|r| r.job) == Some(id);
        let Some(run) = self.run_of(id) else { return };
        match update {
            AgentUpdate::Event(Event::StepStarted(n)) => {
                run.live = Some(Live {
                    step: *n,
                    ..Default::default()
                })
            }
            AgentUpdate::Event(Event::Token(t)) => {
                if let Some(l) = run.live.as_mut() {
                    l.text.push_str(t);
                }
            }
            AgentUpdate::Event(Event::Calling { tool, arguments, .. }) => {
                if let Some(l) = run.live.as_mut() {
                    l.calling = Some((tool.clone(), arguments.clone()));
                }
            }
            AgentUpdate::Event(Event::Step(s)) => {
                run.live = None;
                run.steps.push((**s).clone());
                let last = run.steps.len() - 1;
                if shown && self.focus != Focus::Detail {
                    self.cursor = last;
                }
            }
            AgentUpdate::Event(Event::End(e)) => {
                run.live = None;
                run.end = Some(e.clone());
            }
            AgentUpdate::Ask { request, answer } => {
                self.approval = Some(Approval {
                    job: id,
                    request: request.clone(),
                    answer: answer.clone(),
                    editing: None,
                });
            }
            AgentUpdate::Done(r) => {
                run.live = None;
                run.running = false;
                match r {
                    Ok(t) => {
                        run.header = Some(t.header.clone());
                        run.steps = t.steps.clone();
                        run.end = t.end.clone();
                    }
                    Err(e) => run.error = Some(e.clone()),
                }
            }
        }
    }
}

impl Pane for AgentPane {
    fn handle_key(&mut self, key: KeyEvent, data: &mut Data, out: &mut Outbox) -> bool {
        self.on_key(key, data, out)
    }

    fn render(&mut self, frame: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
        view::draw(self, frame, area, data, theme);
    }

    fn keys(&self, data: &Data) -> Vec<KeyHint> {
        self.hints(data)
    }

    fn help(&self) -> Vec<KeyHint> {
        vec![
            KeyHint::new("a", "Agent: type a question (Enter asks)"),
            KeyHint::new("Enter", "Agent: open the selected step (prompt, reply, call, result)"),
            KeyHint::new("y/n/e", "Agent: approve, deny, edit a tool call (ask mode)"),
            KeyHint::new("Esc", "Agent: cancel the running run"),
            KeyHint::new("h", "Agent: runs of this session and saved transcripts"),
            KeyHint::new("R", "Agent: re-run from the selected step"),
            KeyHint::new("E", "Agent: edit the step's last user message, then re-run from it"),
            KeyHint::new("g/G", "Agent: the tool's endpoint, else the LLM's, on Variants / Endpoints"),
        ]
    }

    fn commands(&self) -> &'static [PaneCommand] {
        &[
            PaneCommand {
                name: "agent-llm",
                takes_arg: true,
                help: "Agent: the LLM endpoint of new runs and re-runs",
            },
            PaneCommand {
                name: "agent-component",
                takes_arg: true,
                help: "Agent: the inference component serving the LLM (none: the next of the LLM endpoint's; `none` clears it)",
            },
            PaneCommand {
                name: "agent-approve",
                takes_arg: true,
                help: "Agent: approval of tool calls: auto, ask, never, or annotations",
            },
            PaneCommand {
                name: "agent-shape",
                takes_arg: true,
                help: "Agent: the request shape of new runs: openai, messages or generate",
            },
            PaneCommand {
                name: "agent-session",
                takes_arg: true,
                help: "Agent: one stateful session per run: new, an open session's id, or off",
            },
        ]
    }

    fn run_command(&mut self, name: &str, arg: Option<&str>, data: &mut Data, out: &mut Outbox) -> bool {
        let arg = arg.map(str::trim).filter(|a| !a.is_empty());
        if let Some((level, text)) = settings::settings_command(&mut self.settings, name, arg) {
            out.toast(level, text);
            return true;
        }
        match (name, arg) {
            ("agent-llm", Some(llm)) => {
                self.settings.llm = Some(llm.to_string());
                out.toast(Level::Info, format!("Agent: new runs ask {llm}"));
                self.follow_llm_components(data, out);
            }
            ("agent-component", arg) => self.choose_component(arg, data, out),
            ("agent-approve", Some(m @ ("auto" | "ask" | "never"))) => {
                self.settings.approve = Some(m.to_string());
                out.toast(Level::Info, format!("Agent: approval {m}"));
            }
            ("agent-approve", Some("annotations")) => {
                self.settings.approve = None;
                out.toast(Level::Info, "Agent: approval by the tools' annotations");
            }
            ("agent-llm" | "agent-approve", _) => {
                out.toast(Level::Warn, format!(":{name} needs a value (see ? for help)"));
            }
            _ => return false,
        }
        true
    }

    fn capturing_text(&self) -> bool {
        self.focus != Focus::Conversation || self.approval.is_some()
    }

    fn on_event(&mut self, ev: &AppEvent, _data: &mut Data, out: &mut Outbox, visible: bool) {
        match ev {
            AppEvent::Agent { id, update } => {
                if let (AgentUpdate::Ask { request, .. }, false) = (update, visible) {
                    let text = format!("Agent: {} waits for your approval (Agent tab)", request.tool);
                    out.toast(Level::Warn, text);
                }
                self.on_update(*id, update)
            }
            AppEvent::McpServers { servers, .. } => {
                self.tools = servers
                    .iter()
                    .flat_map(|s| s.tools.iter().map(|t| (s.name.clone(), t.clone())))
                    .collect();
            }
            _ => {}
        }
    }

    fn on_submitted(&mut self, id: u64, job: &Job) {
        if let Job::Agent(AgentJob::Run(AgentRun {
            question,
            rerun,
            transcript_path,
            ..
        })) = job
        {
            self.runs.push(Run {
                job: Some(id),
                file: transcript_path.clone(),
                question: question.clone(),
                running: true,
                rerun_of: rerun.as_ref().map(|(t, n)| (t.header.run_id.clone(), *n)),
                ..Default::default()
            });
            self.shown = self.runs.len() - 1;
            self.cursor = 0;
            self.focus = Focus::Conversation;
        }
    }

    fn on_finished(&mut self, id: u64, _kind: Option<JobKind>, cancelled: bool, _out: &mut Outbox) {
        if self.approval.as_ref().is_some_and(|a| a.job == id) {
            self.decide(Decision::Deny);
        }
        if let Some(run) = self.run_of(id) {
            run.running = false;
            run.cancelled |= cancelled;
            if cancelled && run.end.is_none() && run.error.is_none() {
                run.error = Some("cancelled".into());
            }
        }
    }
}
