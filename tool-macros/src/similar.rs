//! How alike two names are, for the "did you mean" of a misspelt key: the
//! Jaro-Winkler similarity, written here rather than taken from `strsim`,
//! as the runtime's `names.rs` does (docs/architecture.md, "Did you mean,
//! without `strsim`": the crate was in every user's build for this one
//! function, in the macro and in the runtime alike).

/// The Jaro-Winkler similarity of `a` and `b` by characters, from 0 (nothing
/// alike) to 1 (equal): `strsim::jaro_winkler`'s, to the last bit.
pub(crate) fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let jaro = jaro(&a, &b);
    if jaro <= 0.7 {
        return jaro;
    }
    let mut prefix = 0;
    while prefix < 4 && prefix < a.len() && prefix < b.len() && a[prefix] == b[prefix] {
        prefix += 1;
    }
    jaro + 0.1 * prefix as f64 * (1.0 - jaro)
}

/// The Jaro similarity: the characters of each that match one of the other
/// within half the longer length, and how many of those are out of order.
fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return if a.is_empty() && b.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_matched = vec![false; a.len()];
    let mut b_matched = vec![false; b.len()];
    let mut matches = 0;
    for (i, &c) in a.iter().enumerate() {
        for j in i.saturating_sub(range)..b.len().min(i + range + 1) {
            if !b_matched[j] && b[j] == c {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    // The matched characters of each, in order: pairs that differ.
    let mut transpositions = 0;
    let mut j = 0;
    for (i, &c) in a.iter().enumerate() {
        if a_matched[i] {
            while !b_matched[j] {
                j += 1;
            }
            if b[j] != c {
                transpositions += 1;
            }
            j += 1;
        }
    }
    let m = matches as f64;
    ((m / a.len() as f64) + (m / b.len() as f64) + ((matches - transpositions / 2) as f64 / m))
        / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_strsims_to_the_last_bit() {
        // Words near each other from a small alphabet (accents included, as
        // characters count, not bytes), every pair of lengths up to 9.
        const LETTERS: [char; 7] = ['a', 'b', 'c', 'd', 'é', '_', 'ß'];
        let mut seed = 3u64;
        let word = |seed: &mut u64| -> String {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let length = (*seed >> 60) as usize % 10;
            (0..length)
                .map(|i| LETTERS[(*seed >> (4 * i + 8)) as usize % LETTERS.len()])
                .collect()
        };
        for _ in 0..20_000 {
            let (a, b) = (word(&mut seed), word(&mut seed));
            assert_eq!(
                jaro_winkler(&a, &b).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits(),
                "{a:?} {b:?}"
            );
        }
        for (a, b) in [("cheeseburger", "cheese fries"), ("city", "cty"), ("", "")] {
            assert_eq!(jaro_winkler(a, b), strsim::jaro_winkler(a, b));
        }
    }
}
