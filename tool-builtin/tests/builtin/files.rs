use std::path::Path;

use serde_json::{Value, json};
use tool_runtime::{Registry, registry::Linked};

use crate::{call, refused};

/// A temporary directory holding `root/` (the tools' root) and `outside/`
/// (a directory the tools must never reach, with a secret in it).
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("root")).unwrap();
        std::fs::create_dir(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/secret.txt"), "top secret").unwrap();
        Self { dir }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("root")
    }

    fn outside(&self) -> std::path::PathBuf {
        self.dir.path().join("outside")
    }

    fn registry(&self, extra: Value) -> Registry {
        let mut config = json!({"root": self.root()});
        tool_runtime::config::merge(&mut config, extra);
        Registry::builder()
            .catalog(tool_builtin::ALL)
            .linked(Linked::named(["file_read", "file_write", "file_list"]))
            .configure("file_read", config.clone())
            .configure("file_write", config.clone())
            .configure("file_list", config)
            .config_from_env(false)
            .build()
            .unwrap()
    }

    fn write(&self, path: &str, content: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path)).unwrap()
    }
}

#[tokio::test]
async fn write_read_and_list_round_trip() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    let report = call(
        &registry,
        "file_write",
        json!({"path": "notes/todo.txt", "content": "milk\n"}),
    )
    .await
    .unwrap();
    assert_eq!(
        report,
        json!({"path": "notes/todo.txt", "bytes_written": 5, "size": 5, "created": true})
    );
    let report = call(
        &registry,
        "file_write",
        json!({"path": "notes/todo.txt", "content": "eggs\n", "mode": "append"}),
    )
    .await
    .unwrap();
    assert_eq!(report["size"], 10);
    assert_eq!(report["created"], false);
    assert_eq!(sandbox.read("notes/todo.txt"), "milk\neggs\n");

    let content = call(&registry, "file_read", json!({"path": "notes/todo.txt"}))
        .await
        .unwrap();
    assert_eq!(content["content"], "milk\neggs\n");
    assert_eq!(content["eof"], true);
    assert_eq!(content["size"], 10);

    let listing = call(&registry, "file_list", json!({"recursive": true}))
        .await
        .unwrap();
    assert_eq!(
        listing["entries"],
        json!([
            {"path": "notes", "kind": "dir", "size": listing["entries"][0]["size"]},
            {"path": "notes/todo.txt", "kind": "file", "size": 10},
        ])
    );
    assert_eq!(listing["truncated"], false);
    let listing = call(&registry, "file_list", json!({})).await.unwrap();
    assert_eq!(listing["entries"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn overwrite_replaces_and_create_only_refuses_existing_files() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    sandbox.write("a.txt", "old");
    let report = call(
        &registry,
        "file_write",
        json!({"path": "a.txt", "content": "new"}),
    )
    .await
    .unwrap();
    assert_eq!(report["created"], false);
    assert_eq!(sandbox.read("a.txt"), "new");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "a.txt", "content": "other", "mode": "create_only"}),
    )
    .await;
    assert!(text.contains("already exists"), "{text}");
    assert_eq!(sandbox.read("a.txt"), "new");
    let report = call(
        &registry,
        "file_write",
        json!({"path": "b.txt", "content": "fresh", "mode": "create_only"}),
    )
    .await
    .unwrap();
    assert_eq!(report["created"], true);
    assert_eq!(sandbox.read("b.txt"), "fresh");
}

#[tokio::test]
async fn traversal_attempts_are_refused() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    let secret = sandbox.outside().join("secret.txt");
    let attempts = [
        ("../outside/secret.txt", "\"..\" is not allowed"),
        ("notes/../../outside/secret.txt", "\"..\" is not allowed"),
        ("%2e%2e/outside/secret.txt", "percent-encoded %2e"),
        ("..%2foutside%2fsecret.txt", "percent-encoded %2f"),
        ("%2E%2E%2Foutside/secret.txt", "percent-encoded %2E"),
        (secret.to_str().unwrap(), "absolute path outside"),
        ("/etc/passwd", "absolute path outside"),
        ("secret\u{0}.txt", "NUL byte"),
    ];
    for (path, why) in attempts {
        for tool in ["file_read", "file_write", "file_list"] {
            let args = match tool {
                "file_write" => json!({"path": path, "content": "pwned"}),
                _ => json!({"path": path}),
            };
            let text = refused(&registry, tool, args).await;
            assert!(text.contains("refused path"), "{tool} {path}: {text}");
            assert!(text.contains(why), "{tool} {path}: {text}");
        }
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret");
    assert_eq!(
        std::fs::read_dir(sandbox.root()).unwrap().count(),
        0,
        "nothing was written"
    );
}

#[tokio::test]
async fn an_absolute_path_inside_the_root_is_accepted() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    sandbox.write("inside.txt", "hello");
    let path = sandbox.root().join("inside.txt");
    let content = call(&registry, "file_read", json!({"path": path}))
        .await
        .unwrap();
    assert_eq!(content["content"], "hello");
    assert_eq!(content["path"], "inside.txt");
}

#[cfg(unix)]
#[tokio::test]
async fn symbolic_links_out_of_the_root_are_refused() {
    use std::os::unix::fs::symlink;
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    symlink(sandbox.outside(), sandbox.root().join("escape")).unwrap();
    symlink(
        sandbox.outside().join("secret.txt"),
        sandbox.root().join("secret-link.txt"),
    )
    .unwrap();
    symlink(
        "../outside/secret.txt",
        sandbox.root().join("relative-link.txt"),
    )
    .unwrap();
    symlink("/", sandbox.root().join("slash")).unwrap();

    for path in [
        "escape/secret.txt",
        "secret-link.txt",
        "relative-link.txt",
        "slash/etc/passwd",
    ] {
        let text = refused(&registry, "file_read", json!({"path": path})).await;
        assert!(text.contains("leads outside"), "{path}: {text}");
    }
    let text = refused(&registry, "file_list", json!({"path": "escape"})).await;
    assert!(text.contains("leads outside"), "{text}");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "escape/new.txt", "content": "x"}),
    )
    .await;
    assert!(text.contains("leads outside"), "{text}");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "secret-link.txt", "content": "x"}),
    )
    .await;
    assert!(text.contains("symbolic link"), "{text}");
    assert_eq!(
        std::fs::read_to_string(sandbox.outside().join("secret.txt")).unwrap(),
        "top secret"
    );
    assert!(!sandbox.outside().join("new.txt").exists());

    // Listing shows the links without following them.
    let listing = call(&registry, "file_list", json!({"recursive": true}))
        .await
        .unwrap();
    let kinds: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["symlink"; 4]);
}

#[cfg(unix)]
#[tokio::test]
async fn symbolic_links_inside_the_root_work() {
    use std::os::unix::fs::symlink;
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    sandbox.write("docs/readme.txt", "inside");
    symlink("docs/readme.txt", sandbox.root().join("link.txt")).unwrap();
    symlink("docs", sandbox.root().join("docs-link")).unwrap();
    let content = call(&registry, "file_read", json!({"path": "link.txt"}))
        .await
        .unwrap();
    assert_eq!(content["content"], "inside");
    let content = call(
        &registry,
        "file_read",
        json!({"path": "docs-link/readme.txt"}),
    )
    .await
    .unwrap();
    assert_eq!(content["content"], "inside");
    // A link with an absolute target is refused even when it points inside.
    symlink(
        sandbox.root().join("docs/readme.txt"),
        sandbox.root().join("absolute.txt"),
    )
    .unwrap();
    let text = refused(&registry, "file_read", json!({"path": "absolute.txt"})).await;
    assert!(text.contains("leads outside"), "{text}");
}

#[tokio::test]
async fn large_files_are_read_in_parts() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({"max_read_bytes": 10}));
    sandbox.write("big.txt", "0123456789abcdefghij-end");
    let text = refused(&registry, "file_read", json!({"path": "big.txt"})).await;
    assert!(
        text.contains("24 bytes, more than the read limit of 10 bytes"),
        "{text}"
    );
    assert!(text.contains("offset and length"), "{text}");
    let text = refused(
        &registry,
        "file_read",
        json!({"path": "big.txt", "length": 11}),
    )
    .await;
    assert!(text.contains("more than the read limit"), "{text}");

    let mut offset = 0;
    let mut whole = String::new();
    loop {
        let part = call(
            &registry,
            "file_read",
            json!({"path": "big.txt", "offset": offset}),
        )
        .await
        .unwrap();
        whole.push_str(part["content"].as_str().unwrap());
        offset += part["bytes"].as_u64().unwrap();
        if part["eof"] == true {
            break;
        }
    }
    assert_eq!(whole, "0123456789abcdefghij-end");
    let text = refused(
        &registry,
        "file_read",
        json!({"path": "big.txt", "offset": 99}),
    )
    .await;
    assert!(text.contains("past the end"), "{text}");
}

#[tokio::test]
async fn a_part_never_splits_a_character() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({"max_read_bytes": 4}));
    sandbox.write("accents.txt", "aé€b");
    let part = call(
        &registry,
        "file_read",
        json!({"path": "accents.txt", "length": 4}),
    )
    .await
    .unwrap();
    // "a" (1 byte) + "é" (2 bytes) + the first byte of "€": the cut byte is left for the next part.
    assert_eq!(part["content"], "aé");
    assert_eq!(part["bytes"], 3);
    let part = call(
        &registry,
        "file_read",
        json!({"path": "accents.txt", "offset": 3}),
    )
    .await
    .unwrap();
    assert_eq!(part["content"], "€b");
    assert_eq!(part["eof"], true);
    let text = refused(
        &registry,
        "file_read",
        json!({"path": "accents.txt", "offset": 3, "length": 1}),
    )
    .await;
    assert!(text.contains("do not hold a whole character"), "{text}");
}

#[tokio::test]
async fn binary_files_need_base64() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    std::fs::write(sandbox.root().join("blob.bin"), [0xff, 0x00, 0x10]).unwrap();
    let text = refused(&registry, "file_read", json!({"path": "blob.bin"})).await;
    assert!(
        text.contains("not UTF-8") && text.contains("base64"),
        "{text}"
    );
    let content = call(
        &registry,
        "file_read",
        json!({"path": "blob.bin", "encoding": "base64"}),
    )
    .await
    .unwrap();
    assert_eq!(content["content"], "/wAQ");
    call(
        &registry,
        "file_write",
        json!({"path": "copy.bin", "content": "/wAQ", "encoding": "base64"}),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read(sandbox.root().join("copy.bin")).unwrap(),
        [0xff, 0x00, 0x10]
    );
}

#[tokio::test]
async fn oversize_writes_are_refused_and_leave_the_file_alone() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({"max_write_bytes": 8}));
    sandbox.write("small.txt", "12345");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "small.txt", "content": "123456789"}),
    )
    .await;
    assert!(
        text.contains("9 bytes, more than the write limit of 8 bytes"),
        "{text}"
    );
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "small.txt", "content": "6789", "mode": "append"}),
    )
    .await;
    assert!(text.contains("would pass the write limit"), "{text}");
    assert_eq!(sandbox.read("small.txt"), "12345");
    let names: Vec<_> = std::fs::read_dir(sandbox.root()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left");
}

#[tokio::test]
async fn listings_are_capped() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({"max_list_entries": 3}));
    for i in 0..5 {
        sandbox.write(&format!("f{i}.txt"), "x");
    }
    let listing = call(&registry, "file_list", json!({})).await.unwrap();
    assert_eq!(listing["truncated"], true);
    let paths: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["f0.txt", "f1.txt", "f2.txt"]);
}

#[tokio::test]
async fn directories_and_missing_files() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(json!({}));
    sandbox.write("dir/file.txt", "x");
    let text = refused(&registry, "file_read", json!({"path": "dir"})).await;
    assert!(text.contains("is a directory"), "{text}");
    let text = refused(&registry, "file_read", json!({"path": "nope.txt"})).await;
    assert!(text.contains("no such file"), "{text}");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "dir", "content": "x"}),
    )
    .await;
    assert!(text.contains("is a directory"), "{text}");
    let text = refused(
        &registry,
        "file_write",
        json!({"path": ".", "content": "x"}),
    )
    .await;
    assert!(text.contains("root directory itself"), "{text}");
    let text = refused(&registry, "file_list", json!({"path": "dir/file.txt"})).await;
    assert!(text.contains("cannot list"), "{text}");
}

#[tokio::test]
async fn the_root_is_created_by_writes_only() {
    let sandbox = Sandbox::new();
    let root = sandbox.dir.path().join("later");
    let registry = Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(["file_read", "file_write", "file_list"]))
        .configure("file_read", json!({"root": root}))
        .configure("file_write", json!({"root": root}))
        .configure("file_list", json!({"root": root}))
        .config_from_env(false)
        .build()
        .unwrap();
    let listing = call(&registry, "file_list", json!({})).await.unwrap();
    assert_eq!(listing["entries"], json!([]));
    let text = refused(&registry, "file_read", json!({"path": "a.txt"})).await;
    assert!(text.contains("does not exist yet"), "{text}");
    assert!(!root.exists(), "reading does not create the root");
    call(
        &registry,
        "file_write",
        json!({"path": "a.txt", "content": "hi"}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "hi");

    let fixed = sandbox.dir.path().join("fixed");
    let registry = crate::registry("file_write", json!({"root": fixed, "create_root": false}));
    let text = refused(
        &registry,
        "file_write",
        json!({"path": "a.txt", "content": "hi"}),
    )
    .await;
    assert!(text.contains("create_root is false"), "{text}");
    assert!(!Path::new(&fixed).exists());
}

#[tokio::test]
async fn the_default_configuration_refuses_traversal() {
    let registry = crate::registry("file_read", json!({}));
    let config = registry
        .config("file_read")
        .unwrap()
        .get::<tool_builtin::files::FileConfig>()
        .unwrap();
    assert_eq!(config.root, Path::new("tool-files"));
    let text = refused(&registry, "file_read", json!({"path": "../etc/passwd"})).await;
    assert!(text.contains("\"..\" is not allowed"), "{text}");
}
