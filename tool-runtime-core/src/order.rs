//! Sorting with one copy of the standard library's sort for the whole crate.
//!
//! `slice::sort_by` is generic over the element and the comparison, and
//! each of its instances is some 2,000 lines of LLVM IR: one per call site
//! of the crate, each compiled in every build of a program that uses it.
//! [`sort_by`] sorts a list of positions instead, always of the same type
//! and through the same comparison (`dyn`), then moves the items to their
//! places; only that small move is generic. The sorts here order a
//! registry's tools, versions, reports and problems, which are few, so the
//! indirect comparison costs nothing that shows.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, stably: equal items keep their order.
pub(crate) fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = {
        let items = &*items;
        positions(items.len(), &mut |a, b| compare(&items[a], &items[b]))
    };
    permute(order, &mut |a, b| items.swap(a, b));
}

/// Sorts `items` by the key `key` gives each, stably.
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The positions `0..len` in the order `compare` (of two positions' items)
/// puts their items.
fn positions(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Puts the item at `order[i]` at `i`, for every `i`, by swaps along the
/// permutation's cycles (`swap` swaps two positions).
fn permute(mut order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            // Placed: the cycle through `at` is done once it comes back.
            order[at] = at;
            if from == start || from == at {
                break;
            }
            swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_whatever_the_starting_order() {
        // Every order of a few keys, some equal: the result is the
        // standard library's stable sort's.
        let keys = [3, 1, 2, 1, 0, 3];
        let mut seed = 7u64;
        for _ in 0..500 {
            let mut items: Vec<(u32, usize)> =
                keys.iter().enumerate().map(|(i, &k)| (k, i)).collect();
            for i in (1..items.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                items.swap(i, (seed >> 33) as usize % (i + 1));
            }
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.0);
            sort_by(&mut items, |a, b| a.0.cmp(&b.0));
            assert_eq!(items, expected);
        }
    }

    #[test]
    fn sorts_by_key_and_leaves_short_lists() {
        let mut words = vec!["pear", "fig", "apple", "kiwi"];
        sort_by_key(&mut words, |word| word.len());
        assert_eq!(words, ["fig", "pear", "kiwi", "apple"]);
        let mut one = vec![1];
        sort_by(&mut one, |a: &i32, b| b.cmp(a));
        assert_eq!(one, [1]);
        let mut none: Vec<i32> = Vec::new();
        sort_by(&mut none, |a, b| a.cmp(b));
        assert!(none.is_empty());
    }
}
