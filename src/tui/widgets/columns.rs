//! Table columns by priority: on a narrow terminal the least needed columns give way whole
//! instead of every column being cut.

/// The columns that fit in `width`: taken in `priority` order while each one's width (and a
/// column of spacing) still fits, skipping those that do not; the first of `priority` is always
/// taken. Returned in `priority` order (callers sort them into display order).
pub fn fit(widths: &[u16], priority: &[usize], width: u16) -> Vec<usize> {
    let mut shown = Vec::new();
    let mut used = 0u16;
    for (rank, &c) in priority.iter().enumerate() {
        let w = widths[c] + 1;
        if used + w <= width || rank == 0 {
            shown.push(c);
            used += w;
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn the_least_needed_columns_give_way_whole() {
        let widths = [20, 10, 30, 5];
        assert_eq!(fit(&widths, &[0, 2, 1, 3], 100), [0, 2, 1, 3]);
        // 21 + 31 = 52; the 11 of column 1 does not fit in 60, the 6 of column 3 does.
        assert_eq!(fit(&widths, &[0, 2, 1, 3], 60), [0, 2, 3]);
        assert_eq!(fit(&widths, &[0, 2, 1, 3], 5), [0], "the first column always shows");
    }
}
