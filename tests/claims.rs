//! What docs/architecture.md names exists: every crate, every file or
//! folder, and every type it puts in code spans is found in the workspace,
//! so the page cannot drift from the code unseen.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Names the page may use that the workspace does not define: the
/// standard library's and its dependencies' types and traits.
const FOREIGN: &[&str] = &[
    // rmcp's client and its `auth`, which tool-mcp's client is built on.
    "AuthClient",
    "AuthorizationSession",
    "CredentialStore",
    "InboundStreamOrigin",
    "OAuthHttpClient",
    "StreamableHttpClient",
    "Arc",
    "Box",
    "BTreeMap",
    "Cell",
    "Clone",
    "Cow",
    "Debug",
    "Default",
    "Deserialize",
    "DeserializeSeed",
    "Display",
    "Duration",
    "Error",
    "Fn",
    "FnOnce",
    "Future",
    "HashMap",
    "Instant",
    "JsonSchema",
    "Mutex",
    "None",
    "Option",
    "Pin",
    "Result",
    "RwLock",
    "Schema",
    "Send",
    "Serialize",
    "Serializer",
    "Some",
    "Span",
    "Stream",
    "String",
    "Sync",
    "Value",
    "Vec",
    "Deserializer",
    "T",
    "E",
    "Ok",
    "Err",
    "Self",
    "PhantomData",
    "OnceLock",
    "Infallible",
    "CancellationToken",
    "ArcSwap",
    "Bytes",
    "Request",
    "Response",
    "Command",
    "Child",
    "Subscriber",
    "Layer",
    "Context",
    "Poll",
    "Waker",
    "Any",
    "TypeId",
    "Map",
    "Number",
    "Visitor",
    "MapAccess",
    "SeqAccess",
    "IntoIterator",
    "Iterator",
    "From",
    "Into",
    "AsRef",
    "Path",
    "PathBuf",
    "Ordering",
    "JoinSet",
    "JoinHandle",
    "Notify",
    "Semaphore",
    "Sender",
    "Receiver",
    "Router",
    "RefCell",
    "UnwindSafe",
    "AssertUnwindSafe",
    "ReentrantLock",
    "Copy",
    "Borrowed",
    "Owned",
    "Host",
    "StreamableHttpService",
    "VmHWM",
];

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every file and folder of the workspace (relative, `/`-separated; folders
/// end in `/`), leaving out build output, dependencies and hidden folders.
fn tree(root: &Path) -> Vec<String> {
    fn visit(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                out.push(format!("{relative}/"));
                visit(root, &path, out);
            } else {
                out.push(relative);
            }
        }
    }
    let mut out = Vec::new();
    visit(root, root, &mut out);
    out
}

/// The inline code spans of a Markdown page, outside fenced blocks.
fn spans(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
            out.push(code.to_owned());
        }
    }
    out
}

/// The names of the types, traits and aliases the workspace's sources
/// declare.
fn declared(root: &Path, files: &[String]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files.iter().filter(|file| file.ends_with(".rs")) {
        let Ok(text) = fs::read_to_string(root.join(file)) else {
            continue;
        };
        let words: Vec<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .collect();
        for pair in words.windows(2) {
            if matches!(
                pair[0],
                "struct" | "enum" | "trait" | "type" | "union" | "mod"
            ) {
                names.insert(pair[1].to_owned());
            }
        }
        names.extend(variants(&text));
    }
    names
}

/// The variants of the enums a source file declares: the names that start
/// the lines one level inside an `enum ... {` block.
fn variants(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        match inside {
            None => {
                if trimmed.split_whitespace().any(|word| word == "enum") && trimmed.ends_with('{') {
                    inside = Some(indent);
                }
            }
            Some(level) if indent == level && trimmed.starts_with('}') => inside = None,
            Some(level) if indent == level + 4 => {
                let name: String = trimmed
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                    out.push(name);
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// The type a code span names, when it is one: a CamelCase name, maybe
/// behind a module path and before generic arguments.
fn type_name(code: &str) -> Option<&str> {
    let code = code.split('<').next()?;
    let last = code.rsplit("::").next()?;
    let path_ok = code
        .split("::")
        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'));
    let camel = last.chars().next()?.is_ascii_uppercase()
        && last.chars().any(|c| c.is_ascii_lowercase())
        && !last.contains('_');
    (path_ok && camel).then_some(last)
}

#[test]
fn every_crate_path_and_type_docs_architecture_names_exists() {
    let root = root();
    let page = fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let files = tree(&root);
    let types = declared(&root, &files);
    let crates: BTreeSet<String> = files
        .iter()
        .filter(|file| file.ends_with("/Cargo.toml"))
        .filter_map(|file| {
            let text = fs::read_to_string(root.join(file)).ok()?;
            let line = text.lines().find(|line| line.starts_with("name = "))?;
            Some(
                line.trim_start_matches("name = ")
                    .trim_matches('"')
                    .to_owned(),
            )
        })
        .collect();
    let mut missing = BTreeSet::new();
    for code in spans(&page) {
        let code = code.trim();
        if code.contains(char::is_whitespace) || code.is_empty() {
            continue;
        }
        if code.starts_with("tool-") && code.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            if !crates.contains(code) {
                missing.insert(format!("crate `{code}`"));
            }
        } else if code.ends_with('/')
            || [".rs", ".md", ".sh", ".py", ".toml"]
                .iter()
                .any(|ext| code.ends_with(ext))
        {
            let path = code.trim_start_matches("./");
            let found = files
                .iter()
                .any(|file| file == path || file.ends_with(&format!("/{path}")));
            if !found {
                missing.insert(format!("path `{code}`"));
            }
        } else if let Some(name) = type_name(code)
            && !types.contains(name)
            && !FOREIGN.contains(&name)
        {
            missing.insert(format!("type `{name}` (in `{code}`)"));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what the workspace does not have:\n  {}",
        missing.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}
