//! Text to search terms: words split at punctuation, `snake_case`,
//! `kebab-case` and `camelCase` boundaries, lowercased, common English
//! words dropped, and cut to a rough stem so that `send`, `sends` and
//! `sending` meet.

/// Words too common to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does",
    "for", "from", "given", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me",
    "my", "of", "on", "one", "or", "our", "please", "should", "so", "some", "that", "the", "their",
    "them", "then", "there", "these", "this", "to", "tool", "up", "us", "use", "via", "want",
    "was", "we", "what", "when", "where", "which", "who", "will", "with", "would", "you", "your",
];

/// Words a request is often put in, and the words tools are usually named
/// and described with for the same action: a query's word also searches
/// for these, at [`RELATED_WEIGHT`] of its own weight.
const RELATED: &[(&str, &[&str])] = &[
    ("add", &["create"]),
    ("cancel", &["delete"]),
    ("change", &["update", "set"]),
    ("current", &["get"]),
    ("display", &["list", "get"]),
    ("edit", &["update"]),
    ("erase", &["delete"]),
    ("fetch", &["get"]),
    ("find", &["search", "get"]),
    ("latest", &["list"]),
    ("locate", &["search", "get"]),
    ("look", &["search", "get"]),
    ("lookup", &["search", "get"]),
    ("make", &["create"]),
    ("modify", &["update"]),
    ("new", &["create"]),
    ("read", &["get"]),
    ("remove", &["delete"]),
    ("retrieve", &["get"]),
    ("show", &["list", "get"]),
    ("view", &["get", "list"]),
];

/// How much a related word counts next to the word the query has.
pub(crate) const RELATED_WEIGHT: f32 = 0.5;

/// Calls `each` with every search term of `text`, in order.
pub(crate) fn terms(text: &str, mut each: impl FnMut(String)) {
    words(text, |word| {
        let lower = word.to_lowercase();
        let letter = lower.len() == 1 && !lower.as_bytes()[0].is_ascii_digit();
        if !letter && !STOP_WORDS.contains(&lower.as_str()) {
            each(stem(lower));
        }
    });
}

/// Calls `each` with every term of a query and its weight: the query's own
/// terms at 1, and the [related words](RELATED) of its verbs at
/// [`RELATED_WEIGHT`].
pub(crate) fn query_terms(text: &str, mut each: impl FnMut(String, f32)) {
    words(text, |word| {
        let lower = word.to_lowercase();
        if let Ok(i) = RELATED.binary_search_by(|(known, _)| known.cmp(&lower.as_str())) {
            for related in RELATED[i].1 {
                each(stem((*related).to_owned()), RELATED_WEIGHT);
            }
        }
    });
    terms(text, |term| each(term, 1.0));
}

/// Calls `each` with every word of `text`: runs of letters and digits, a
/// run split again where a lowercase letter meets an uppercase one
/// (`sendEmail`) and before the last capital of an acronym that starts a
/// word (`HTTPServer`: `HTTP`, `Server`). Letters and digits stay together
/// (`s3`, `base64`). Non-ASCII letters are kept as they are.
fn words(text: &str, mut each: impl FnMut(&str)) {
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let chars: Vec<(usize, char)> = run.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (at, c) = chars[i];
            let previous = chars[i - 1].1;
            let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
            let boundary = c.is_uppercase()
                && (previous.is_lowercase()
                    || previous.is_ascii_digit()
                    || (previous.is_uppercase() && next_lower));
            if boundary {
                each(&run[start..at]);
                start = at;
            }
        }
        each(&run[start..]);
    }
}

/// A rough English stem of a lowercase word: plural and verb endings and a
/// final `e` taken off (`deliveries` -> `delivery`, `created` and `create`
/// -> `creat`, `running` -> `run`). It only has to treat a query's words
/// and a tool's words alike; it is not a linguist's stem.
fn stem(mut word: String) -> String {
    if !word.is_ascii() || word.len() < 4 {
        return word;
    }
    if word.ends_with("ies") && word.len() > 4 {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if word.ends_with("sses") || word.ends_with("xes") || word.ends_with("ches") {
        word.truncate(word.len() - 2);
    } else if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word.pop();
    }
    for suffix in ["ing", "ed"] {
        if word.len() >= suffix.len() + 3 && word.ends_with(suffix) {
            word.truncate(word.len() - suffix.len());
            let bytes = word.as_bytes();
            let n = bytes.len();
            // `running` -> `runn` -> `run`; but `falling` keeps `fall`.
            if n >= 2 && bytes[n - 1] == bytes[n - 2] && !b"lsz".contains(&bytes[n - 1]) {
                word.pop();
            }
            break;
        }
    }
    if word.len() > 4 && word.ends_with('e') {
        word.pop();
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, |term| out.push(term));
        out
    }

    #[test]
    fn splits_snake_kebab_and_camel_case() {
        assert_eq!(all("get_user-profile"), ["get", "user", "profil"]);
        assert_eq!(all("sendEmailNow"), ["send", "email", "now"]);
        assert_eq!(all("HTTPServer status"), ["http", "server", "status"]);
        assert_eq!(all("s3 bucket base64"), ["s3", "bucket", "base64"]);
    }

    #[test]
    fn drops_stop_words_and_punctuation() {
        assert_eq!(all("What is the weather in Paris?"), ["weather", "paris"]);
        assert!(all("  , . !").is_empty());
    }

    #[test]
    fn inflections_meet() {
        for (a, b) in [
            ("create", "created"),
            ("delete", "deleting"),
            ("invoice", "invoices"),
            ("delivery", "deliveries"),
            ("run", "running"),
            ("schedule", "scheduled"),
            ("image", "images"),
            ("search", "searches"),
        ] {
            assert_eq!(all(a), all(b), "{a} / {b}");
        }
        assert_eq!(all("status"), ["status"]);
        assert_eq!(all("falling"), ["fall"]);
    }

    #[test]
    fn queries_also_search_related_verbs() {
        assert!(
            RELATED.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "sorted"
        );
        let mut out = Vec::new();
        query_terms("Find Acme's contacts", |term, weight| {
            out.push((term, weight))
        });
        assert_eq!(
            out,
            [
                ("search".to_owned(), RELATED_WEIGHT),
                ("get".to_owned(), RELATED_WEIGHT),
                ("find".to_owned(), 1.0),
                ("acme".to_owned(), 1.0),
                ("contact".to_owned(), 1.0),
            ]
        );
    }

    #[test]
    fn non_ascii_words_are_kept() {
        assert_eq!(all("Größe température"), ["größe", "température"]);
    }
}
