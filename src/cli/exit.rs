//! How a command ends: its exit codes (the README's table) and [`Exit`], the error of a command
//! that carries its code and its one-line message, so that commands return [`CmdResult`] and use
//! `?`. The dispatch (`cli::run`) prints the message and turns the code into the process's.

use std::fmt::Display;
use std::io::Write;

use crate::aws::AwsError;
use crate::aws::change::guard::GuardError;
use crate::aws::promote::events::PromoteError;

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: usage error or invalid input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: AWS or API error.
pub const EXIT_AWS: i32 = 3;
/// Exit code: the model container answered non-2xx.
pub const EXIT_MODEL: i32 = 4;
/// Exit code: refused because read-only is on (`--read-only` or the profile's `read_only`).
pub const EXIT_READ_ONLY: i32 = 5;
/// Exit code: a guardrail refused the mutation (the endpoint changed since it was read, or the
/// audit log cannot be written); nothing was sent.
pub const EXIT_REFUSED: i32 = 6;
/// Exit code: a promotion did not complete (a gate failed and it rolled back, no verdict, or held),
/// or a deployment rolled back.
pub const EXIT_PROMOTION: i32 = 7;
/// Exit code: `autoscaling --check` / `--check-request` found something wrong.
pub const EXIT_CHECK_FAILED: i32 = 8;
/// Exit code: an agent run stopped without a final answer (max steps, token budget, deadline,
/// retries, denied, LLM error, cancelled).
pub const EXIT_NO_ANSWER: i32 = 9;
/// Exit code: an asynchronous request expired in the queue (its RequestTTLSeconds passed before
/// an instance took it; `invoke-async --wait`).
pub const EXIT_EXPIRED: i32 = 10;
/// Exit code: the reader of standard output went away (`| head`, `| grep -m1`): the command
/// ends quietly, as `ls | head` does for the shell, with success.
pub const EXIT_OUTPUT_CLOSED: i32 = EXIT_OK;

/// The exit codes, as `--help` shows them.
pub const EXIT_CODES: &str = "Exit codes: 0 ok (also when the reader of the output goes away, as with `| head`), 2 usage or invalid input, 3 AWS/API error, 4 model error (the container answered non-2xx), 5 refused: read-only, 6 refused by a guardrail (endpoint not InService or changed since read, audit log unwritable: nothing sent; or a lost race with a concurrent change), 7 promotion not completed (rolled back, no verdict or held) or deployment rolled back, 8 autoscaling --check/--check-request found problems, 9 agent stopped without a final answer, 10 an asynchronous request expired in the queue (invoke-async --wait).";

/// What a command returns: `Ok` is exit 0.
pub type CmdResult = Result<(), Exit>;

/// A command that ends with an exit code other than a plain success: the code and the one line
/// that says why (None when it has already been said, or when there is nothing to say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    code: i32,
    message: Option<String>,
    output_closed: bool,
}

impl Exit {
    /// Exit `code`, saying `message`.
    pub fn new(code: i32, message: impl Display) -> Exit {
        Exit {
            code,
            message: Some(message.to_string()),
            output_closed: false,
        }
    }

    /// Exit `code` with nothing more to say (the command has printed why).
    pub fn code(code: i32) -> Exit {
        Exit {
            code,
            message: None,
            output_closed: false,
        }
    }

    /// Usage or invalid input (exit 2).
    pub fn usage(message: impl Display) -> Exit {
        Exit::new(EXIT_USAGE, message)
    }

    /// A guardrail refused (exit 6).
    pub fn refused(message: impl Display) -> Exit {
        Exit::new(EXIT_REFUSED, message)
    }

    /// The reader of standard output went away: stop quietly.
    pub fn output_closed() -> Exit {
        Exit {
            code: EXIT_OUTPUT_CLOSED,
            message: None,
            output_closed: true,
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        self.code
    }

    /// The line to print, if any.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Whether the command stopped because its output was closed.
    pub fn is_output_closed(&self) -> bool {
        self.output_closed
    }

    /// Prints the message (`sagedeck: ...` on stderr, unless stderr is closed too) and returns
    /// the exit code. The message may carry outside text (an AWS error, a server's answer): its
    /// control characters are written out.
    pub fn report(&self) -> i32 {
        if let Some(m) = &self.message {
            let m = crate::format::escape_text(m);
            let _ = writeln!(std::io::stderr().lock(), "sagedeck: {m}");
        }
        self.code
    }
}

/// The exit code of a classified error: 4 for a model error, 2 for configuration and for an
/// inference-components endpoint called without a component (pass one), else 3 (a component at
/// zero copies included).
pub fn exit_code(e: &AwsError) -> i32 {
    match e {
        AwsError::ModelError { .. } => EXIT_MODEL,
        AwsError::Config(_) | AwsError::ComponentRequired { .. } | AwsError::AsyncOnly { .. } => EXIT_USAGE,
        _ => EXIT_AWS,
    }
}

impl From<AwsError> for Exit {
    fn from(e: AwsError) -> Exit {
        Exit::new(exit_code(&e), e)
    }
}

impl From<&AwsError> for Exit {
    fn from(e: &AwsError) -> Exit {
        Exit::new(exit_code(e), e)
    }
}

impl From<GuardError> for Exit {
    fn from(e: GuardError) -> Exit {
        match e {
            GuardError::Aws(a) => a.into(),
            other => Exit::refused(other),
        }
    }
}

impl From<PromoteError> for Exit {
    fn from(e: PromoteError) -> Exit {
        match e {
            PromoteError::Invalid(m) => Exit::usage(m),
            PromoteError::Guard(g) => g.into(),
            PromoteError::Aws(a) => a.into(),
            PromoteError::State(m) => Exit::new(EXIT_AWS, m),
        }
    }
}
