//! Drawing the Agent pane: the question line (with the settings a new run uses), the per-step
//! waterfall (LLM time and tool time as bars on one scale), the conversation as it grows, a
//! step's detail (scrolls), the runs list, and the approval dialog over them.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{AgentPane, Focus, Run};
use crate::mcp::agent::{Step, Stop};
use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};
use crate::tui::widgets::outside::escaped;
use crate::tui::widgets::{centered, modal, pane_frame, title};

/// `text` cut into lines of at most `width` characters (its own line breaks kept), between
/// tokens as the Tools result is (`crate::format::wrap_tokens`): a word or a JSON key is cut only
/// when it is wider than a line. Its control characters are written out: everything the pane
/// draws of a run (the model's text, arguments, tool results, problems) passes here.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in crate::format::escape_text(text).lines() {
        if width < 8 {
            let chars: Vec<char> = line.chars().collect();
            out.extend(chars.chunks(width).map(|c| c.iter().collect::<String>()));
            if chars.is_empty() {
                out.push(String::new());
            }
        } else {
            out.extend(crate::format::wrap_tokens(line, width));
        }
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

/// A result on one line: JSON compacted, other text with its line breaks as spaces, cut at
/// `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => v.to_string(),
        Err(_) => text.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

/// Draws the whole pane.
pub(super) fn draw(p: &mut AgentPane, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    let [ask, body] = Layout::vertical([Constraint::Length(3), Constraint::Min(3)]).areas(area);
    draw_question(p, f, ask, data, theme);
    match p.focus {
        Focus::Detail => draw_detail(p, f, body, theme),
        Focus::Runs => draw_runs(p, f, body, theme),
        _ => {
            let rows = p.shown_run().map(|r| r.steps.len() + r.live.is_some() as usize).unwrap_or(0);
            let h = (rows as u16 + 2).clamp(3, (body.height / 2).max(3));
            let [steps, talk] = Layout::vertical([Constraint::Length(h), Constraint::Min(3)]).areas(body);
            draw_waterfall(p, f, steps, theme);
            draw_conversation(p, f, talk, theme);
        }
    }
    if p.approval.is_some() {
        draw_approval(p, f, body, theme);
    }
}

fn draw_question(p: &AgentPane, f: &mut Frame, area: Rect, data: &Data, theme: &Theme) {
    let editing = p.focus == Focus::EditStep;
    let typing = p.focus == Focus::Input || editing;
    let heading = match (editing, typing) {
        (true, _) => format!(
            " Step {}'s last user message — capturing text: Enter re-runs from it · Esc leaves ",
            p.selected_step().map(|s| s.step).unwrap_or(0)
        ),
        (false, true) => " Question — capturing text: Enter asks · Esc leaves ".into(),
        (false, false) => " Question ".into(),
    };
    let inner = pane_frame(f, area, heading, typing, theme);
    let s = &p.settings;
    let line = if typing {
        // The end of a question longer than the line, where the cursor is.
        let text = if editing { &p.edit } else { &p.input };
        let room = (inner.width as usize).saturating_sub(3);
        let skip = text.chars().count().saturating_sub(room);
        Line::from(vec![
            Span::styled("› ", theme.fg(Role::Accent)),
            Span::styled(text.chars().skip(skip).collect::<String>(), theme.fg(Role::Fg)),
            Span::styled("▏", theme.fg(Role::Accent)),
        ])
    } else {
        let approval = s.approve.clone().unwrap_or_else(|| "by annotations".into());
        let mut shape = s.shape.clone().unwrap_or_else(|| "messages".into());
        if let Some(session) = &s.session {
            shape = format!("{shape}, session {}", crate::format::escape_line(session));
        }
        let servers = if s.servers.is_empty() { "none".into() } else { s.servers.join(", ") };
        let mut llm = s.llm.clone().unwrap_or_else(|| "none ([agent] llm)".into());
        if let Some(ic) = &s.inference_component {
            llm = format!("{llm}/{}", crate::format::escape_text(ic));
        }
        let key = if data.read_only { "read-only: asking is off" } else { "a: ask" };
        Line::from(vec![
            Span::styled(format!("{key}  "), theme.fg(Role::Accent)),
            Span::styled(
                format!("LLM {llm} ({shape}) · servers {servers} · approval {approval}"),
                theme.fg(Role::Muted),
            ),
        ])
    };
    f.render_widget(Paragraph::new(line), inner);
}

/// One waterfall row's bar: LLM cells then tool cells, on the scale of the slowest step.
fn bar(step: &Step, scale: f64, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let tool = step.tool.as_ref().map(|t| t.ms).unwrap_or(0.0);
    let cells = |v: f64| ((v / scale) * width as f64).round() as usize;
    let l = cells(step.llm_ms).clamp(1, width);
    let t = if step.tool.is_some() { cells(tool).max(1).min(width - l) } else { 0 };
    vec![
        Span::styled("█".repeat(l), theme.fg(Role::Chart1)),
        Span::styled("▓".repeat(t), theme.fg(Role::Chart2)),
        Span::raw(" ".repeat(width - l - t)),
    ]
}

fn draw_waterfall(p: &AgentPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let inner = pane_frame(f, area, " Steps — LLM █ · tool ▓ (one time scale) ", false, theme);
    let Some(run) = p.shown_run() else {
        let hint = "No run yet: press a, type a question, Enter.";
        f.render_widget(Paragraph::new(Span::styled(hint, theme.fg(Role::Muted))), inner);
        return;
    };
    let scale = run
        .steps
        .iter()
        .map(|s| s.llm_ms + s.tool.as_ref().map(|t| t.ms).unwrap_or(0.0))
        .fold(1.0, f64::max);
    let width = (inner.width as usize / 3).clamp(8, 40);
    let mut lines: Vec<Line> = Vec::new();
    for (i, s) in run.steps.iter().enumerate() {
        let selected = i == p.cursor;
        let mut spans = vec![Span::styled(
            format!("{}#{:<2} ", if selected { "›" } else { " " }, s.step),
            if selected { theme.selection() } else { theme.fg(Role::Muted) },
        )];
        spans.extend(bar(s, scale, width, theme));
        let what = match (&s.tool, &s.parsed, &s.problem) {
            (Some(t), _, _) => format!(" tool {} {}", ms(t.ms), t.tool),
            (None, _, Some(_)) => " problem".to_string(),
            (None, Some(c), None) => format!(" {} not called", c.name),
            (None, None, None) => " answer".to_string(),
        };
        spans.push(Span::styled(format!(" LLM {}{what}", ms(s.llm_ms)), theme.fg(Role::Fg)));
        lines.push(Line::from(spans));
    }
    if let Some(l) = &run.live {
        let asking = p.approval.as_ref().filter(|a| Some(a.job) == run.job);
        let doing = match (&l.calling, asking) {
            (_, Some(a)) => format!("waiting for your approval of {}", a.request.tool),
            (Some((tool, _)), None) => format!("calling {tool} …"),
            (None, None) => "asking the LLM …".into(),
        };
        lines.push(Line::from(Span::styled(
            format!(" #{:<2} {doing}", l.step),
            theme.fg(Role::Accent),
        )));
    }
    let skip = (p.cursor + 1).saturating_sub(inner.height as usize);
    let lines: Vec<Line> = lines.into_iter().skip(skip).collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// The conversation's lines, and the line where each step starts.
fn conversation(run: &Run, width: usize, theme: &Theme) -> (Vec<Line<'static>>, Vec<usize>) {
    let mut lines = Vec::new();
    let mut starts = Vec::new();
    let push = |lines: &mut Vec<Line<'static>>, text: &str, style: Style| {
        for l in wrap(text, width) {
            lines.push(Line::from(Span::styled(l, style)));
        }
    };
    push(&mut lines, &format!("you: {}", run.question), theme.fg(Role::Accent));
    for s in &run.steps {
        starts.push(lines.len());
        let variant = s.invoked_variant.as_deref().map(|v| format!(" · {v}")).unwrap_or_default();
        let tokens = match (s.tokens_in, s.tokens_out) {
            (Some(i), Some(o)) => format!(" · {i}→{o} tokens"),
            _ => String::new(),
        };
        let head = format!("step {} · LLM {}{variant}{tokens}", s.step, ms(s.llm_ms));
        push(&mut lines, &head, theme.fg(Role::Muted));
        if let Some(a) = &s.approval {
            push(&mut lines, &format!("  ? {a}"), theme.fg(Role::Muted));
        }
        match (&s.tool, &s.parsed) {
            (Some(t), _) => {
                push(&mut lines, &format!("  → {}/{} {}", t.server, t.tool, t.arguments), theme.fg(Role::Fg));
                let role = if t.is_error { Role::StatusError } else { Role::Fg };
                push(&mut lines, &format!("  ← {} ({})", one_line(&t.result, 240), ms(t.ms)), theme.fg(role));
            }
            (None, Some(c)) => push(&mut lines, &format!("  → {} {}", c.name, c.arguments), theme.fg(Role::Fg)),
            (None, None) => {}
        }
        if let Some(why) = &s.problem {
            push(&mut lines, &format!("  ! {why}"), theme.fg(Role::StatusWarn));
        }
    }
    if let Some(l) = &run.live {
        push(&mut lines, &format!("step {} …", l.step), theme.fg(Role::Accent));
        if !l.text.is_empty() {
            push(&mut lines, &format!("  {}", l.text), theme.fg(Role::Muted));
        }
    } else if run.running && run.end.is_none() {
        push(&mut lines, "starting …", theme.fg(Role::Accent));
    }
    match (&run.end, &run.error) {
        (Some(e), _) if e.stop == Stop::FinalAnswer => {
            let answer = e.answer.clone().unwrap_or_default();
            push(&mut lines, &format!("answer: {answer}"), theme.fg(Role::StatusOk));
        }
        (Some(e), _) => {
            // Cancelled while a call waited for approval: the loop saw a denial.
            let stop = if run.cancelled { Stop::Cancelled } else { e.stop };
            let detail = e.detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default();
            push(&mut lines, &format!("{}{detail}", stop.describe()), theme.fg(Role::StatusWarn));
        }
        (None, Some(err)) => push(&mut lines, &format!("could not run: {err}"), theme.fg(Role::StatusError)),
        (None, None) => {}
    }
    if let Some(e) = &run.end {
        let sum = format!("{} steps · {} tokens · {} total", e.steps, e.tokens, ms(e.total_ms));
        push(&mut lines, &sum, theme.fg(Role::Muted));
    }
    (lines, starts)
}

fn draw_conversation(p: &AgentPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let heading = match p.shown_run() {
        Some(r) => {
            let id = r.header.as_ref().map(|h| h.run_id.as_str()).filter(|i| !i.is_empty());
            let rerun = r.rerun_of.as_ref().map(|(id, n)| format!(" · re-run of {id} from step {n}"));
            format!(" Conversation{}{} ", id.map(|i| format!(" — {i}")).unwrap_or_default(), rerun.unwrap_or_default())
        }
        None => " Conversation ".into(),
    };
    let inner = pane_frame(f, area, heading, false, theme);
    let Some(run) = p.shown_run() else { return };
    let (lines, starts) = conversation(run, inner.width as usize, theme);
    let h = inner.height as usize;
    // The newest lines, unless that hides the selected step's first line.
    let mut skip = lines.len().saturating_sub(h);
    if let Some(&start) = starts.get(p.cursor) {
        skip = skip.min(start);
    }
    f.render_widget(Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()), inner);
}

/// The text of a step's detail: its numbers, the prompt sent, the raw reply, the parsed call,
/// the approval, the tool call and result, the problem.
pub fn detail_text(s: &Step) -> String {
    let mut t = format!(
        "step {} · LLM {} · {} attempt(s) · variant {} · tokens {} in / {} out · sagedeck {:.3} ms (audit {:.3} ms)\n",
        s.step,
        ms(s.llm_ms),
        s.llm_attempts,
        s.invoked_variant.as_deref().unwrap_or("-"),
        s.tokens_in.map(|v| v.to_string()).unwrap_or("-".into()),
        s.tokens_out.map(|v| v.to_string()).unwrap_or("-".into()),
        s.own_ms,
        s.audit_ms,
    );
    t.push_str("\n── prompt sent ──\n");
    for m in &s.messages {
        t.push_str(&format!("[{}]\n{}\n", m.role, m.content));
        if let Some(c) = &m.tool_calls {
            t.push_str(&format!("tool_calls: {c}\n"));
        }
    }
    t.push_str(&format!("\n── raw reply ──\n{}\n", s.raw_reply));
    if let Some(c) = &s.parsed {
        let args = serde_json::to_string_pretty(&c.arguments).unwrap_or_default();
        t.push_str(&format!("\n── parsed call ({}) ──\n{}\n{args}\n", c.source, c.name));
    }
    if let Some(a) = &s.approval {
        t.push_str(&format!("\n── approval ──\n{a}\n"));
    }
    if let Some(tool) = &s.tool {
        let args = serde_json::to_string_pretty(&tool.arguments).unwrap_or_default();
        let error = if tool.is_error { " · isError" } else { "" };
        t.push_str(&format!(
            "\n── tool call {}/{} · {}{error} ──\n{args}\n\n── tool result ──\n{}\n",
            tool.server,
            tool.tool,
            ms(tool.ms),
            tool.result
        ));
    }
    if let Some(why) = &s.problem {
        t.push_str(&format!("\n── problem (sent back to the model) ──\n{why}\n"));
    }
    t
}

fn draw_detail(p: &mut AgentPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let Some(step) = p.selected_step() else {
        p.focus = Focus::Conversation;
        return;
    };
    let heading = format!(" Step {} — ↑↓ PgUp/PgDn scroll · ←→ step · g endpoint · Esc back ", step.step);
    let inner = pane_frame(f, area, heading, true, theme);
    let lines = wrap(&detail_text(step), inner.width as usize);
    let max = lines.len().saturating_sub(inner.height as usize) as u16;
    p.scroll = p.scroll.min(max);
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(p.scroll as usize)
        .map(|l| {
            let style = if l.starts_with("── ") { theme.fg(Role::Title) } else { theme.fg(Role::Fg) };
            Line::from(Span::styled(l, style))
        })
        .collect();
    f.render_widget(Paragraph::new(shown), inner);
}

fn draw_runs(p: &AgentPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let inner = pane_frame(f, area, " Runs — this session and saved transcripts · Enter shows ", true, theme);
    if p.runs.is_empty() {
        let text = "No runs yet, and no saved transcripts.";
        f.render_widget(Paragraph::new(Span::styled(text, theme.fg(Role::Muted))), inner);
        return;
    }
    let rows: Vec<Line> = p
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let state = match (&r.end, r.running, &r.error) {
                (_, true, _) => "running".to_string(),
                (Some(e), _, _) if e.stop == Stop::FinalAnswer => format!("answered in {} steps", e.steps),
                (Some(e), _, _) => format!("{:?}", e.stop).to_lowercase(),
                (None, _, Some(e)) => e.clone(),
                (None, false, None) => "no end recorded".into(),
            };
            let origin = if r.job.is_some() { "session" } else { "saved  " };
            let text = format!("{}{origin}  {}  · {state}", if i == p.list_cursor { "› " } else { "  " }, r.question);
            let style = if i == p.list_cursor { theme.selection() } else { theme.fg(Role::Fg) };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let skip = (p.list_cursor + 1).saturating_sub(inner.height as usize);
    f.render_widget(Paragraph::new(escaped(rows.into_iter().skip(skip).collect())), inner);
}

fn draw_approval(p: &AgentPane, f: &mut Frame, area: Rect, theme: &Theme) {
    let Some(a) = &p.approval else { return };
    let r = &a.request;
    let mut lines = vec![
        Line::from(Span::styled(
            format!("Step {} wants to call {}/{}", r.step, r.server, r.tool),
            theme.fg(Role::Fg),
        )),
        Line::from(Span::styled(format!("asks because: {}", r.why), theme.fg(Role::Muted))),
        Line::from(""),
    ];
    match &a.editing {
        Some(text) => {
            lines.push(Line::from(Span::styled("Arguments (JSON object):", theme.fg(Role::Accent))));
            lines.push(Line::from(vec![
                Span::styled(format!("› {text}"), theme.fg(Role::Fg)),
                Span::styled("▏", theme.fg(Role::Accent)),
            ]));
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled("Enter sends the edited call · Esc back", theme.fg(Role::Muted))));
        }
        None => {
            lines.push(Line::from(Span::styled("Arguments:", theme.fg(Role::Muted))));
            let pretty = serde_json::to_string_pretty(&r.arguments).unwrap_or_default();
            lines.extend(pretty.lines().map(|l| Line::from(Span::styled(l.to_string(), theme.fg(Role::Fg)))));
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(
                "y approve · n deny · e edit the arguments first",
                theme.fg(Role::Accent),
            )));
        }
    }
    let rect = centered(area, 70, 10, 50, lines.len() as u16 + 4);
    let body = Paragraph::new(escaped(lines)).wrap(Wrap { trim: false });
    modal(f, rect, theme.border(true), title(" Approve tool call? ", theme), body, theme);
}
