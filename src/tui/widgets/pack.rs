//! Long lines of label–value spans shown whole on several rows instead of cut at the pane's
//! edge. A line breaks only between its segments — a segment starts at a span that begins with
//! a space (`  image `, ` · p99 …`) — so a label stays with its value; a segment wider than the
//! row itself (a long image name) breaks between characters. Continuation rows are indented.

use ratatui::text::{Line, Span};

/// Columns a continuation row is indented by.
const INDENT: &str = "   ";

/// `line` as rows of at most `width` columns (the line itself when it fits).
pub fn pack_line(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(INDENT.len() + 8);
    if line.width() <= width {
        return vec![line];
    }
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for segment in segments(line.spans) {
        let seg_width: usize = segment.iter().map(Span::width).sum();
        if used > 0 && used + seg_width > width {
            rows.push(vec![Span::raw(INDENT)]);
            used = INDENT.len();
            push_trimmed(&mut rows, &mut used, segment, width);
        } else {
            push_chars(&mut rows, &mut used, segment, width);
        }
    }
    rows.into_iter().map(Line::from).collect()
}

/// Every line of `lines` packed into `width` columns.
pub fn pack_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines.into_iter().flat_map(|l| pack_line(l, width)).collect()
}

/// The spans grouped into segments: a new one at each span that begins with a space.
fn segments(spans: Vec<Span<'static>>) -> Vec<Vec<Span<'static>>> {
    let mut out: Vec<Vec<Span<'static>>> = Vec::new();
    for span in spans {
        match out.last_mut() {
            Some(seg) if !span.content.starts_with(' ') => seg.push(span),
            _ => out.push(vec![span]),
        }
    }
    out
}

/// Appends a segment that starts a continuation row, without its leading spaces.
fn push_trimmed(rows: &mut Vec<Vec<Span<'static>>>, used: &mut usize, mut segment: Vec<Span<'static>>, width: usize) {
    if let Some(first) = segment.first_mut() {
        first.content = first.content.trim_start().to_string().into();
    }
    push_chars(rows, used, segment, width);
}

/// Appends a segment to the last row, breaking between characters when it does not fit.
fn push_chars(rows: &mut Vec<Vec<Span<'static>>>, used: &mut usize, segment: Vec<Span<'static>>, width: usize) {
    for span in segment {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = char_width(c);
            if *used + w > width {
                if !piece.is_empty() {
                    rows.last_mut()
                        .expect("a row")
                        .push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                rows.push(vec![Span::raw(INDENT)]);
                *used = INDENT.len();
            }
            piece.push(c);
            *used += w;
        }
        if !piece.is_empty() {
            rows.last_mut().expect("a row").push(Span::styled(piece, span.style));
        }
    }
}

/// Columns a character takes on the terminal.
fn char_width(c: char) -> usize {
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(rows: &[Line]) -> Vec<String> {
        rows.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_line_that_fits_is_left_alone() {
        let l = Line::from(vec![Span::raw("model"), Span::raw(" m1")]);
        assert_eq!(pack_line(l.clone(), 40), vec![l]);
    }

    #[test]
    fn a_long_line_breaks_between_segments_and_keeps_labels_with_values() {
        let l = Line::from(vec![
            Span::raw(" Stable (baseline)"),
            Span::raw("  model "),
            Span::raw("classifier-v3"),
            Span::raw("  image "),
            Span::raw("huggingface-pytorch-inference:2.1.0"),
        ]);
        let rows = text(&pack_line(l, 50));
        assert_eq!(
            rows,
            [
                " Stable (baseline)  model classifier-v3",
                "   image huggingface-pytorch-inference:2.1.0"
            ]
        );
    }

    #[test]
    fn a_segment_wider_than_the_row_breaks_between_characters() {
        let long = "x".repeat(50);
        let rows = text(&pack_line(
            Line::from(vec![Span::raw("image "), Span::raw(long.clone())]),
            20,
        ));
        assert!(rows.iter().all(|r| r.chars().count() <= 20), "{rows:?}");
        assert_eq!(rows.concat().matches('x').count(), 50, "{rows:?}");
    }
}
