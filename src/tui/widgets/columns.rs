//! Table columns by priority: on a narrow terminal the least needed columns give way whole
//! instead of every column being cut, and a column whose value is the same on every row (one
//! account, one region) gives way first: it tells nothing a row needs.

/// The columns that fit in `width`: taken in `priority` order — the columns of `same` (the same
/// value on every row) moved to its end — while each one's width (and a column of spacing)
/// still fits, skipping those that do not; the first of `priority` is always taken. Returned in
/// that order (callers sort them into display order).
pub fn fit(widths: &[u16], priority: &[usize], same: &[usize], width: u16) -> Vec<usize> {
    let (first, rest) = priority.split_first().map_or((None, &[][..]), |(f, r)| (Some(*f), r));
    let order = first
        .into_iter()
        .chain(rest.iter().copied().filter(|c| !same.contains(c)))
        .chain(rest.iter().copied().filter(|c| same.contains(c)));
    let mut shown = Vec::new();
    let mut used = 0u16;
    for (rank, c) in order.enumerate() {
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
        assert_eq!(fit(&widths, &[0, 2, 1, 3], &[], 100), [0, 2, 1, 3]);
        // 21 + 31 = 52; the 11 of column 1 does not fit in 60, the 6 of column 3 does.
        assert_eq!(fit(&widths, &[0, 2, 1, 3], &[], 60), [0, 2, 3]);
        assert_eq!(
            fit(&widths, &[0, 2, 1, 3], &[], 5),
            [0],
            "the first column always shows"
        );
    }

    #[test]
    fn a_column_with_the_same_value_on_every_row_gives_way_first() {
        let widths = [20, 10, 30, 5];
        // Column 2 says the same on every row: 1 and 3 are taken before it, and it no longer fits.
        assert_eq!(fit(&widths, &[0, 2, 1, 3], &[2], 60), [0, 1, 3]);
        assert_eq!(
            fit(&widths, &[0, 2, 1, 3], &[2], 100),
            [0, 1, 3, 2],
            "it shows when there is room"
        );
        assert_eq!(
            fit(&widths, &[0, 2, 1, 3], &[0], 5),
            [0],
            "the first column stays first"
        );
    }
}
