//! The context bar: profile, region, endpoint URL, refresh age, STALE and READ-ONLY badges, the
//! session's audit reason, the job in flight; and the tab bar under it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs};

use crate::tui::data::Data;
use crate::tui::theme::{Role, Theme};

/// Formats an age: `4s`, `3m12s`, `2h05m`.
pub fn age(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// A coarse age for the header: `40s`, `4m`, `3h`, `2d`.
pub fn coarse_age(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

/// Display width of spans.
fn width(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.width()).sum()
}

/// Draws the context line. Items that do not fit are dropped, lowest priority first (the
/// endpoint URL, the product name, the audit reason, the job in flight, then the labels); the
/// selected endpoint's last change is shortened to its age before it goes; the region, the
/// refresh age and the STALE / READ-ONLY / CONFIG ERROR badges always show.
pub fn render_context(f: &mut Frame, area: Rect, data: &Data, theme: &Theme, busy: Option<&str>) {
    let muted = theme.fg(Role::Muted);
    let head = theme.fg(Role::Header).add_modifier(Modifier::BOLD);
    let mut region = vec![
        Span::styled("  region ", muted),
        Span::styled(data.context.region.clone(), theme.fg(Role::Fg)),
    ];
    if let Some(old) = data.previous_region.as_ref().filter(|_| !data.loaded) {
        region.push(Span::styled(format!(" (was {old})"), theme.fg(Role::StatusWarn)));
    }
    // (priority: higher stays longer, spans); drawn in this order.
    let mut items: Vec<(u8, Vec<Span>)> = vec![
        (2, vec![Span::styled(" sagedeck ", head)]),
        (
            6,
            vec![
                Span::styled("profile ", muted),
                Span::styled(data.context.profile.clone(), theme.fg(Role::Fg)),
            ],
        ),
        (8, region),
        (
            1,
            vec![
                Span::styled("  endpoint ", muted),
                Span::styled(data.context.endpoint.clone(), theme.fg(Role::Fg)),
            ],
        ),
        (
            7,
            vec![
                Span::styled("  refreshed ", muted),
                Span::styled(
                    match data.last_ok {
                        Some(t) => format!("{} ago", age(t.elapsed())),
                        None if data.refresh_failed => "never".into(),
                        None => "loading…".into(),
                    },
                    theme.fg(Role::Fg),
                ),
            ],
        ),
    ];
    badges(&mut items, data, theme, busy);
    let change = data.selected.as_ref().and_then(|s| data.last_change.get(s));
    // The change's age stays as long as the refresh age; its detail goes (shortened first)
    // right after the job in flight.
    let detail_at = items.len() + 1;
    if let Some((at, how)) = change {
        let ago = coarse_age(crate::format::now_epoch() - at);
        items.push((7, vec![Span::styled(format!("  changed {ago} ago"), muted)]));
        items.push((5, vec![Span::styled(format!(": {how}"), theme.fg(Role::Fg))]));
    }
    let spans = fit(items, detail_at, area.width as usize);
    f.render_widget(Paragraph::new(Line::from(spans)).style(theme.base()), area);
}

/// The badges, the reason and the job in flight, after the context.
fn badges(items: &mut Vec<(u8, Vec<Span<'static>>)>, data: &Data, theme: &Theme, busy: Option<&str>) {
    let muted = theme.fg(Role::Muted);
    let badge = |text: &'static str, role: Role| {
        vec![
            Span::raw(" "),
            Span::styled(text, theme.fg(role).add_modifier(Modifier::REVERSED | Modifier::BOLD)),
        ]
    };
    if data.stale() {
        items.push((9, badge(" STALE ", Role::Stale)));
    }
    if let Some(slower) = data.throttled_interval {
        let text = format!("  throttled: refresh slowed to {}s", slower.as_secs());
        items.push((8, vec![Span::styled(text, theme.fg(Role::StatusWarn))]));
    }
    if data.read_only {
        items.push((9, badge(" READ-ONLY ", Role::Readonly)));
    }
    if data.config_error.is_some() {
        items.push((9, badge(" CONFIG ERROR: e shows it ", Role::Danger)));
    }
    if let Some(r) = &data.reason {
        items.push((
            3,
            vec![
                Span::styled("  reason ", muted),
                Span::styled(r.clone(), theme.fg(Role::Accent)),
            ],
        ));
    }
    if let Some(b) = busy {
        items.push((
            4,
            vec![Span::styled(format!("  ⟳ {b} (Esc cancels)"), theme.fg(Role::Accent))],
        ));
    }
}

/// Drops the lowest-priority items (priority 9 stays) until the rest fit in `room` columns; the
/// change's detail at `detail_at` first loses its end, then goes.
fn fit(mut items: Vec<(u8, Vec<Span<'static>>)>, detail_at: usize, room: usize) -> Vec<Span<'static>> {
    let total = |items: &[(u8, Vec<Span>)]| items.iter().map(|(_, s)| width(s)).sum::<usize>();
    while total(&items) > room {
        let Some(lowest) = (0..items.len())
            .filter(|i| !items[*i].1.is_empty())
            .min_by_key(|i| items[*i].0)
            .filter(|i| items[*i].0 < 9)
        else {
            break;
        };
        if lowest == detail_at && !items[lowest].1[0].content.ends_with('…') {
            let over = total(&items) - room;
            let detail = items[lowest].1.pop().unwrap_or_default();
            let keep = detail.content.chars().count().saturating_sub(over + 1);
            if keep >= 8 {
                let text: String = detail.content.chars().take(keep).collect();
                items[lowest].1.push(Span::styled(format!("{text}…"), detail.style));
            }
            continue;
        }
        items[lowest].1.clear();
    }
    items.into_iter().flat_map(|(_, s)| s).collect()
}

/// The number key of the tab at `index` (0-based): 1 to 9, then 0 for the tenth; later tabs
/// have none (Tab and their `:` command reach them).
pub fn tab_key(index: usize) -> Option<char> {
    match index {
        0..=8 => char::from_digit(index as u32 + 1, 10),
        9 => Some('0'),
        _ => None,
    }
}

/// The tab row's labels for `width` columns: "N Title" each when they fit; else the other
/// tabs' titles shortened to three letters, or two; else only their keys. The current tab's title is
/// always whole.
pub fn tab_labels(titles: &[&str], current: usize, width: u16) -> Vec<String> {
    let label = |i: usize, t: &str, keep: Option<usize>| {
        let key = tab_key(i).map(|k| k.to_string()).unwrap_or_else(|| "·".into());
        match keep {
            _ if i == current => format!("{key} {t}"),
            None => format!("{key} {t}"),
            Some(0) => key,
            Some(n) => format!("{key} {}", t.chars().take(n).collect::<String>()),
        }
    };
    // A divider between labels; `render_tabs` drops the padding around them when it must.
    let fits = |labels: &[String]| labels.iter().map(|l| l.chars().count() + 1).sum::<usize>() <= width as usize + 1;
    for keep in [None, Some(3), Some(2), Some(0)] {
        let labels: Vec<String> = titles.iter().enumerate().map(|(i, t)| label(i, t, keep)).collect();
        if fits(&labels) || keep == Some(0) {
            return labels;
        }
    }
    unreachable!("the last candidate is always returned")
}

/// Draws the tab bar: `titles` in order, `current` (0-based) highlighted, shortened to fit.
pub fn render_tabs(f: &mut Frame, area: Rect, titles: &[&str], current: usize, theme: &Theme) {
    let titles: Vec<Line> = tab_labels(titles, current, area.width)
        .into_iter()
        .map(Line::from)
        .collect();
    let widths: Vec<usize> = titles.iter().map(Line::width).collect();
    let tabs = Tabs::new(titles)
        .select(current)
        .style(theme.fg(Role::Muted))
        .highlight_style(
            theme
                .fg(Role::Accent)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
        .divider(Span::styled("│", theme.fg(Role::Border)));
    // On a narrow terminal the padding around the titles goes, so that every tab shows.
    let text: usize = widths.iter().map(|w| w + 1).sum();
    let tabs = if text + widths.len() * 2 <= area.width as usize {
        tabs
    } else if text + widths.len() <= area.width as usize {
        tabs.padding("", " ")
    } else {
        tabs.padding("", "")
    };
    f.render_widget(tabs, area);
}

#[cfg(test)]
mod tests {
    use super::*;

    const ELEVEN: [&str; 11] = [
        "Endpoints",
        "Variants",
        "Models",
        "Latency",
        "Invoke",
        "Tools",
        "Activity",
        "Agent",
        "Logs",
        "Timeline",
        "Scaling",
    ];

    fn width(labels: &[String]) -> usize {
        labels.iter().map(|l| l.chars().count() + 1).sum::<usize>() - 1
    }

    #[test]
    fn tabs_keep_their_keys_and_the_current_title_when_narrow() {
        let wide = tab_labels(&ELEVEN, 7, 160);
        assert_eq!(wide[7], "8 Agent");
        assert_eq!(wide[9], "0 Timeline");
        assert_eq!(wide[10], "· Scaling");
        let narrow = tab_labels(&ELEVEN, 7, 80);
        assert!(width(&narrow) <= 80, "{narrow:?}");
        assert_eq!(narrow[7], "8 Agent", "the current tab stays whole");
        assert_eq!(narrow[0], "1 End");
        assert_eq!(tab_labels(&ELEVEN, 7, 64)[0], "1 En");
        assert_eq!(tab_labels(&ELEVEN, 7, 120)[0], "1 Endpoints");
        let tiny = tab_labels(&ELEVEN, 2, 40);
        assert_eq!(tiny[0], "1");
        assert_eq!(tiny[2], "3 Models");
    }

    #[test]
    fn number_keys_run_one_to_nine_then_zero() {
        assert_eq!(tab_key(0), Some('1'));
        assert_eq!(tab_key(8), Some('9'));
        assert_eq!(tab_key(9), Some('0'));
        assert_eq!(tab_key(10), None);
    }
}
