//! Driving a promotion plan from the command line: its progress printed as it goes, its
//! questions answered from stdin (`--yes` answers "next step"), Ctrl-C asking hold or roll back
//! on a terminal (headless, it holds), and the exit code of how it ended.

use std::io::{BufRead, IsTerminal, Write};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::view::{event_line, print_state};
use crate::aws::promote::events::{Control, PromoteError, PromotionEvent, Question};
use crate::aws::promote::plan::{Phase, PlanState};
use crate::aws::promote::run::PromotionRunner;
use crate::cli::args::{GlobalArgs, interrupts};
use crate::cli::exit::{CmdResult, EXIT_AWS, EXIT_PROMOTION, Exit};
use crate::cli::output::{print_json, weight};

fn stdin_lines() -> UnboundedReceiver<String> {
    let (tx, rx) = unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(l) = line else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

fn prompt(text: &str) {
    eprint!("{text} ");
    let _ = std::io::stderr().flush();
}

/// Drives a runner: prints progress, answers questions from stdin (`--yes` answers "next step"),
/// handles Ctrl-C; returns the exit code.
pub(super) async fn drive(
    g: &GlobalArgs,
    runner: PromotionRunner,
    control: UnboundedSender<Control>,
    yes: bool,
    rollback: bool,
) -> CmdResult {
    let total = runner.state().spec.steps.len();
    let show = |e: &PromotionEvent| {
        if !g.json
            && let Some(l) = event_line(e, total)
        {
            eprintln!("{l}");
        }
    };
    let mut sigint = interrupts();
    let mut sigint_open = true;
    let (etx, mut events) = unbounded_channel();
    let runner = runner.with_events(etx);
    let mut task = tokio::spawn(async move {
        if rollback {
            runner.rollback().await
        } else {
            runner.run().await
        }
    });
    let mut answers = Answers {
        control,
        yes,
        total,
        terminal: std::io::stdin().is_terminal(),
        pending: None,
        interrupted: false,
    };
    let mut lines = stdin_lines();
    let result = loop {
        tokio::select! {
            r = &mut task => break r,
            Some(e) = events.recv() => {
                show(&e);
                if let PromotionEvent::Ask { question } = e {
                    answers.ask(question);
                }
            }
            line = lines.recv(), if answers.waiting() => answers.answer(line.unwrap_or_default()),
            sig = sigint.recv(), if sigint_open => match sig {
                None => sigint_open = false,
                Some(()) => answers.interrupt(),
            },
        }
    };
    // The task can finish while its last events (the held or rolled-back line) still wait in
    // the channel: the runner is gone, so everything it said is there to print.
    while let Ok(e) = events.try_recv() {
        show(&e);
    }
    match result {
        Ok(outcome) => ended(g, outcome, rollback),
        Err(e) => Err(Exit::new(EXIT_AWS, format!("the plan runner stopped: {e}"))),
    }
}

/// The plan's side of the conversation while it runs: the question waiting for a line on stdin,
/// whether Ctrl-C asked "hold or roll back", and where the answers go.
struct Answers {
    control: UnboundedSender<Control>,
    /// `--yes`: "next step" and "consolidate" are answered at once.
    yes: bool,
    /// Steps of the plan.
    total: usize,
    /// Whether stdin is a terminal (Ctrl-C asks there; headless, it holds).
    terminal: bool,
    pending: Option<Question>,
    interrupted: bool,
}

impl Answers {
    /// Whether a line of stdin is awaited.
    fn waiting(&self) -> bool {
        self.pending.is_some() || self.interrupted
    }

    /// A question of the runner: answered at once with `--yes` when it may be, else asked.
    fn ask(&mut self, question: Question) {
        let total = self.total;
        match (&question, self.yes) {
            (Question::NextStep { .. } | Question::Consolidate { .. }, true) => {
                let _ = self.control.send(Control::Proceed);
                return;
            }
            (Question::Consolidate { canary }, false) => prompt(&format!(
                "Every step passed. Consolidate (a new endpoint config with only {canary}; the old one kept)? [y]es / [h]old / [r]oll back"
            )),
            (Question::NextStep { step, share }, false) => prompt(&format!(
                "Apply step {}/{total} (canary {}%)? [y]es / [h]old / [r]oll back",
                step + 1,
                weight(*share)
            )),
            (Question::AfterGate { step, verdict }, _) => prompt(&format!(
                "Step {} verdict: {}. [r]oll back / [h]old{}",
                step + 1,
                verdict.as_str(),
                if *verdict == crate::aws::promote::report::Verdict::NoVerdict {
                    " / [y] bake again"
                } else {
                    ""
                }
            )),
        }
        self.pending = Some(question);
    }

    /// A line typed in answer: yes proceeds (not after Ctrl-C), r rolls back, anything else
    /// holds.
    fn answer(&mut self, answer: String) {
        let c = match answer.trim() {
            "y" | "Y" | "yes" if !self.interrupted => Control::Proceed,
            "r" | "R" | "rollback" => Control::Rollback,
            _ => Control::Hold,
        };
        self.pending = None;
        self.interrupted = false;
        let _ = self.control.send(c);
    }

    /// Ctrl-C: on a terminal, the first asks hold or roll back; headless (or again), it holds.
    fn interrupt(&mut self) {
        if self.terminal && !self.interrupted {
            prompt("\nInterrupted: [h]old here (resume later) or [r]oll back?");
            self.interrupted = true;
        } else {
            let _ = self.control.send(Control::Hold);
        }
    }
}

/// Prints how the plan ended; the exit code says whether it did what was asked (completed, or
/// rolled back when that was asked).
fn ended(g: &GlobalArgs, outcome: Result<PlanState, PromoteError>, rollback: bool) -> CmdResult {
    let state = outcome?;
    if g.json {
        print_json(&state)?;
    } else {
        print_state(&state)?;
    }
    let done = state.phase == Phase::Completed || (rollback && state.phase == Phase::RolledBack);
    if done { Ok(()) } else { Err(Exit::code(EXIT_PROMOTION)) }
}
