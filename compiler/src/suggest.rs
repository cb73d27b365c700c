//! Nearest-match suggestions for unknown operator names (dialect §10).
//!
//! Candidates are offered in a fixed order (special forms, transformers including the
//! backquote, primitives, roster tools, script functions, script macros); the first
//! candidate with the strictly smallest distance below [`MAX_DISTANCE`] wins. The distance
//! is 1 when the unknown name is the candidate with a namespace prefix or suffix stripped
//! (`seq-take` → `take`, `cl-mapcar` → `mapcar`), and the Levenshtein distance over
//! characters otherwise.
//!
//! Invariant: the work is bounded by the candidates' lengths, not the unknown name's alone:
//! a candidate whose length differs from the name's by [`MAX_DISTANCE`] or more is skipped
//! without computing a distance.

/// Distances at or above this are never suggested.
pub const MAX_DISTANCE: usize = 3;

/// The suggestion for `name` among `candidates` (in priority order), if any is close.
#[must_use]
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(&'a str, usize)> = None;
    for candidate in candidates {
        let distance = distance(name, candidate);
        if distance < MAX_DISTANCE && best.is_none_or(|(_, d)| distance < d) {
            best = Some((candidate, distance));
        }
    }
    best.map(|(candidate, _)| candidate)
}

/// The suggestion distance of `name` from `candidate`: 1 for a namespace-stripped match,
/// else the Levenshtein distance (values at or above [`MAX_DISTANCE`] are reported as
/// [`MAX_DISTANCE`]).
#[must_use]
pub fn distance(name: &str, candidate: &str) -> usize {
    if is_namespaced(name, candidate) {
        return 1;
    }
    bounded_levenshtein(name, candidate)
}

fn is_namespaced(name: &str, candidate: &str) -> bool {
    let suffix = name
        .strip_suffix(candidate)
        .is_some_and(|rest| rest.ends_with('-'));
    let prefix = name
        .strip_prefix(candidate)
        .is_some_and(|rest| rest.starts_with('-'));
    suffix || prefix
}

/// Levenshtein distance over characters, capped at [`MAX_DISTANCE`].
fn bounded_levenshtein(left: &str, right: &str) -> usize {
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    if left.len().abs_diff(right.len()) >= MAX_DISTANCE {
        return MAX_DISTANCE;
    }
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    let mut current = vec![0; right.len() + 1];
    for (i, lc) in left.iter().enumerate() {
        current.fill(0);
        if let Some(first) = current.first_mut() {
            *first = i + 1;
        }
        for (j, rc) in right.iter().enumerate() {
            let substitute = previous.get(j).copied().unwrap_or(0) + usize::from(lc != rc);
            let delete = previous.get(j + 1).copied().unwrap_or(0) + 1;
            let insert = current.get(j).copied().unwrap_or(0) + 1;
            if let Some(cell) = current.get_mut(j + 1) {
                *cell = substitute.min(delete).min(insert);
            }
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous.last().copied().unwrap_or(0).min(MAX_DISTANCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_stripping_is_distance_one() {
        assert_eq!(distance("seq-take", "take"), 1);
        assert_eq!(distance("cl-mapcar", "mapcar"), 1);
        assert_eq!(distance("take-while", "take"), 1);
        assert_eq!(distance("seqtake", "take"), 3);
    }

    #[test]
    fn levenshtein_counts_characters() {
        assert_eq!(distance("lenght", "length"), 2);
        assert_eq!(distance("car", "car"), 0);
        assert_eq!(distance("cdr", "car"), 1);
        assert_eq!(distance("é", "e"), 1);
        assert_eq!(distance("abcdefgh", "a"), 3);
    }

    #[test]
    fn first_strictly_smallest_wins() {
        assert_eq!(suggest("cax", ["car", "cdr", "cax2"]), Some("car"));
        assert_eq!(suggest("cdx", ["car", "cdr"]), Some("cdr"));
        assert_eq!(suggest("zzzzzz", ["car", "cdr"]), None);
    }
}
