//! Skills (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`,
//! `resources/directory/read`, their files read with `resources/read`, the
//! capability, and skills read from a directory (`Skills::from_dir`): its
//! mistakes, its limits, its symbolic links.

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tool_mcp::resources::Resources;
use tool_mcp::resources::skills::{Skills, SkillsError};
use tool_mcp::server::McpServer;
use tool_runtime::Registry;

use super::{Client, ERAS, Era, plain};

const SKILL_MD: &str = "---\nname: pdf-forms\ndescription: Fills PDF forms.\nversion: 2\nmetadata:\n  audience: [\"ops\", 'dev']\n---\n# PDF forms\nRead references/fields.md first.\n";

const BILLING: &str = "---\nname: billing\ndescription: Issues invoices.\n---\nBill.\n";

/// A skill with a nested folder and a binary file, and a second skill.
fn skills() -> Skills {
    Skills::builder()
        .skill(
            "pdf-forms",
            [
                ("SKILL.md", SKILL_MD.as_bytes().to_vec()),
                ("references/fields.md", b"# Fields\n".to_vec()),
                ("references/deep/notes.txt", b"notes".to_vec()),
                ("logo.png", vec![0x89, 0x50, 0x4e, 0x47, 0xff]),
            ],
        )
        .skill("acme/billing", [("SKILL.md", BILLING.as_bytes().to_vec())])
        .build()
        .unwrap()
}

fn server() -> McpServer {
    let resources = Resources::builder().skills(skills()).build().unwrap();
    McpServer::new(Registry::builder().build().unwrap()).with_resources(resources)
}

fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

#[tokio::test]
async fn the_extension_is_declared_only_with_skills() {
    let settings = json!({"directoryRead": true});
    let (_, init) = Client::start(server(), Era::Session).await;
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        settings
    );
    assert!(capabilities["resources"].is_object());
    let (_, discover) = Client::start(server(), Era::Stateless).await;
    let capabilities = &discover["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        settings
    );
    let plain_resources = Resources::builder().build().unwrap();
    let bare = McpServer::new(Registry::builder().build().unwrap()).with_resources(plain_resources);
    for era in ERAS {
        let (mut client, start) = Client::start(bare.clone(), era).await;
        assert!(
            start["result"]["capabilities"].get("extensions").is_none(),
            "{era:?}"
        );
        for method in ["skills/list", "skills/get", "resources/directory/read"] {
            let response = client
                .request(method, json!({"uri": "skill://a/SKILL.md"}))
                .await;
            assert_eq!(
                response["error"]["code"], -32601,
                "{era:?} {method}: {response}"
            );
        }
    }
}

#[tokio::test]
async fn skills_list_gives_each_skill_with_its_manifest() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let list = client.request("skills/list", json!({})).await;
        let list = plain(era, &list, true);
        let entries = list["skills"].as_array().unwrap();
        let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/SKILL.md",
                "skill://pdf-forms/SKILL.md"
            ]
        );
        assert!(list.get("nextCursor").is_none());
        let pdf = &entries[1];
        // The frontmatter as JSON, YAML's core types kept.
        assert_eq!(
            pdf["frontmatter"],
            json!({"name": "pdf-forms", "description": "Fills PDF forms.", "version": 2,
                   "metadata": {"audience": ["ops", "dev"]}})
        );
        let files: Vec<&str> = pdf["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            [
                "skill://pdf-forms/SKILL.md",
                "skill://pdf-forms/logo.png",
                "skill://pdf-forms/references/deep/notes.txt",
                "skill://pdf-forms/references/fields.md",
            ]
        );
    }
}

#[tokio::test]
async fn digests_and_sizes_are_those_of_the_bytes_read() {
    let (mut client, _) = Client::start(server(), Era::Stateless).await;
    let list = client.request("skills/list", json!({})).await;
    let mut checked = 0;
    for skill in list["result"]["skills"].as_array().unwrap() {
        for file in skill["resources"].as_array().unwrap() {
            let read = client
                .request("resources/read", json!({"uri": file["uri"]}))
                .await;
            let contents = &read["result"]["contents"][0];
            assert_eq!(contents["uri"], file["uri"]);
            let bytes = match contents.get("text") {
                Some(Value::String(text)) => text.clone().into_bytes(),
                _ => {
                    use base64::Engine as _;
                    let blob = contents["blob"].as_str().unwrap();
                    base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .unwrap()
                }
            };
            assert_eq!(file["size"], bytes.len(), "{file}");
            assert_eq!(file["digest"], sha256(&bytes), "{file}");
            checked += 1;
        }
    }
    assert_eq!(checked, 5);
}

#[tokio::test]
async fn skills_get_gives_one_entry_and_refuses_an_unknown_uri() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let uri = "skill://pdf-forms/SKILL.md";
        let get = client.request("skills/get", json!({"uri": uri})).await;
        let get = plain(era, &get, true);
        assert_eq!(get["skill"]["uri"], uri);
        assert_eq!(get["skill"]["frontmatter"]["name"], "pdf-forms");
        assert_eq!(get["skill"]["resources"].as_array().unwrap().len(), 4);
        assert!(get.get("nextCursor").is_none());
        for unknown in [
            "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md",
            "skill://pdf-forms/references/fields.md",
        ] {
            let response = client.request("skills/get", json!({"uri": unknown})).await;
            assert_eq!(response["error"]["code"], -32602, "{response}");
            assert_eq!(response["error"]["data"], json!({"uri": unknown}));
        }
        let response = client.request("skills/get", json!({})).await;
        assert_eq!(response["error"]["code"], -32602, "{response}");
    }
}

#[tokio::test]
async fn skill_files_are_read_and_only_skill_md_is_listed() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true)["resources"],
            json!([
                {"uri": "skill://acme/billing/SKILL.md", "name": "billing",
                 "description": "Issues invoices.", "mimeType": "text/markdown",
                 "size": BILLING.len()},
                {"uri": "skill://pdf-forms/SKILL.md", "name": "pdf-forms",
                 "description": "Fills PDF forms.", "mimeType": "text/markdown",
                 "size": SKILL_MD.len()},
            ])
        );
        let read = client
            .request(
                "resources/read",
                json!({"uri": "skill://pdf-forms/SKILL.md"}),
            )
            .await;
        assert_eq!(
            plain(era, &read, true)["contents"],
            json!([{"uri": "skill://pdf-forms/SKILL.md", "mimeType": "text/markdown",
                    "text": SKILL_MD}])
        );
        let nested = client
            .request(
                "resources/read",
                json!({"uri": "skill://pdf-forms/references/deep/notes.txt"}),
            )
            .await;
        assert_eq!(
            plain(era, &nested, true)["contents"],
            json!([{"uri": "skill://pdf-forms/references/deep/notes.txt",
                    "mimeType": "text/plain", "text": "notes"}])
        );
        let png = client
            .request(
                "resources/read",
                json!({"uri": "skill://pdf-forms/logo.png"}),
            )
            .await;
        let contents = &png["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "image/png");
        assert_eq!(contents["blob"], "iVBOR/8=");
        let missing = client
            .request(
                "resources/read",
                json!({"uri": "skill://pdf-forms/nothing.md"}),
            )
            .await;
        assert_eq!(missing["error"]["code"], -32602, "{missing}");
    }
}

#[tokio::test]
async fn directory_read_gives_files_and_subfolders() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let read = |uri: &str| json!({"uri": uri});
        let top = client
            .request("resources/directory/read", read("skill://pdf-forms"))
            .await;
        assert_eq!(
            plain(era, &top, true),
            json!({"resources": [
                {"uri": "skill://pdf-forms/SKILL.md", "name": "SKILL.md",
                 "mimeType": "text/markdown", "size": SKILL_MD.len()},
                {"uri": "skill://pdf-forms/logo.png", "name": "logo.png",
                 "mimeType": "image/png", "size": 5},
                {"uri": "skill://pdf-forms/references", "name": "references",
                 "mimeType": "inode/directory"},
            ]})
        );
        let references = client
            .request(
                "resources/directory/read",
                read("skill://pdf-forms/references"),
            )
            .await;
        assert_eq!(
            plain(era, &references, true)["resources"],
            json!([
                {"uri": "skill://pdf-forms/references/deep", "name": "deep",
                 "mimeType": "inode/directory"},
                {"uri": "skill://pdf-forms/references/fields.md", "name": "fields.md",
                 "mimeType": "text/markdown", "size": 9},
            ])
        );
        for not_a_folder in [
            "skill://pdf-forms/SKILL.md",
            "skill://pdf-forms/refer",
            "skill://acme",
        ] {
            let response = client
                .request("resources/directory/read", read(not_a_folder))
                .await;
            assert_eq!(response["error"]["code"], -32602, "{response}");
            assert_eq!(response["error"]["data"], json!({"uri": not_a_folder}));
        }
    }
}

/// Writes `files` (path, text) below `root`.
fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn from_dir_reads_every_skill_below_the_directory() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &[
            ("pdf-forms/SKILL.md", SKILL_MD),
            ("pdf-forms/references/fields.md", "# Fields\n"),
            ("pdf-forms/.git/config", "hidden"),
            (
                "acme/billing/SKILL.md",
                "---\nname: billing\ndescription: Bills.\n---\n",
            ),
            ("README.md", "not a skill"),
        ],
    );
    let skills = Skills::from_dir(root.path()).unwrap();
    let uris: Vec<&str> = skills.list().iter().map(|skill| skill.uri()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/SKILL.md",
            "skill://pdf-forms/SKILL.md"
        ]
    );
    let pdf = skills.get("skill://pdf-forms/SKILL.md").unwrap();
    let files: Vec<&str> = pdf.files().iter().map(|file| file.uri()).collect();
    assert_eq!(
        files,
        [
            "skill://pdf-forms/SKILL.md",
            "skill://pdf-forms/references/fields.md"
        ]
    );
    assert_eq!(pdf.files()[1].digest(), sha256(b"# Fields\n"));
    assert_eq!(pdf.description(), "Fills PDF forms.");
    assert!(skills.skipped().is_empty());
}

/// The error `from_dir` gives for a `pdf-forms/SKILL.md` of `text`.
fn mistake(text: &str) -> (String, usize, String) {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), &[("pdf-forms/SKILL.md", text)]);
    match Skills::from_dir(root.path()).unwrap_err() {
        SkillsError::Skill {
            file,
            line,
            message,
        } => {
            let expected = root.path().join("pdf-forms").join("SKILL.md");
            assert_eq!(file, expected.display().to_string());
            (file, line, message)
        }
        other => panic!("a mistake in SKILL.md, not {other:?}"),
    }
}

#[test]
fn frontmatter_mistakes_name_the_file_and_line() {
    let (file, line, message) = mistake("---\ndescription: Fills forms.\n---\n");
    assert_eq!(line, 2);
    assert!(message.contains("no `name`"), "{message}");
    let error = SkillsError::Skill {
        file: file.clone(),
        line,
        message: message.clone(),
    };
    assert_eq!(error.to_string(), format!("{file}:2: {message}"));

    let (_, line, message) = mistake("---\nname: pdf-forms\n---\n");
    assert_eq!(line, 2);
    assert!(message.contains("no `description`"), "{message}");

    let (_, line, message) = mistake("---\ndescription: x\nname: other\n---\n");
    assert_eq!(line, 3);
    assert!(
        message.contains("the skill's folder is `pdf-forms`"),
        "{message}"
    );

    let (_, line, message) = mistake("---\nname: pdf-forms\ndescription: [unclosed\n---\n");
    assert!(line >= 3, "{line}: {message}");
    assert!(message.contains("not valid YAML"), "{message}");

    let (_, line, message) = mistake("---\nname: pdf-forms\ndescription: a\nname: b\n---\n");
    assert_eq!(line, 4, "{message}");

    let (_, line, message) = mistake("# PDF forms\nno frontmatter\n");
    assert_eq!(line, 1);
    assert!(
        message.contains("must begin with a YAML frontmatter"),
        "{message}"
    );

    let (_, line, message) = mistake("---\nname: pdf-forms\ndescription: 3\n---\n");
    assert_eq!(line, 3);
    assert!(
        message.contains("`description` must be a non-empty string"),
        "{message}"
    );
}

#[test]
fn a_folder_name_that_is_no_skill_name_is_refused() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &[(
            "PDF--Forms/SKILL.md",
            "---\nname: PDF--Forms\ndescription: x\n---\n",
        )],
    );
    let error = Skills::from_dir(root.path()).unwrap_err().to_string();
    assert!(error.contains("is not a skill name"), "{error}");
}

#[test]
fn skills_over_the_limits_are_left_out_with_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let small = "---\nname: small\ndescription: Small.\n---\n";
    let big = "---\nname: big\ndescription: Big.\n---\n";
    write(
        root.path(),
        &[
            ("small/SKILL.md", small),
            ("big/SKILL.md", big),
            ("big/one.txt", "one, a file longer than the names"),
            ("big/two.txt", "two"),
        ],
    );
    let skills = Skills::builder()
        .max_files(2)
        .dir(root.path())
        .unwrap()
        .build()
        .unwrap();
    let uris: Vec<&str> = skills.list().iter().map(|skill| skill.uri()).collect();
    assert_eq!(uris, ["skill://small/SKILL.md"]);
    assert_eq!(skills.skipped().len(), 1);
    assert_eq!(skills.skipped()[0].path, "big");
    assert!(
        skills.skipped()[0].reason.contains("3 files"),
        "{:?}",
        skills.skipped()
    );

    let skills = Skills::builder()
        .max_bytes(small.len() as u64)
        .dir(root.path())
        .unwrap()
        .build()
        .unwrap();
    let uris: Vec<&str> = skills.list().iter().map(|skill| skill.uri()).collect();
    assert_eq!(uris, ["skill://small/SKILL.md"]);
    // In memory, the same limits.
    let skills = Skills::builder()
        .max_bytes(10)
        .skill("big", [("SKILL.md", big)])
        .build()
        .unwrap();
    assert!(skills.list().is_empty());
    assert_eq!(skills.skipped()[0].path, "big");
    assert_eq!(Skills::DEFAULT_MAX_FILES, 512);
    assert_eq!(Skills::DEFAULT_MAX_BYTES, 16 * 1024 * 1024);
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_refused_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), &[("secret.txt", "secret")]);
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &[("pdf-forms/SKILL.md", SKILL_MD), ("elsewhere/link-ok", "")],
    );
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        root.path().join("pdf-forms/secret.txt"),
    )
    .unwrap();
    let error = Skills::from_dir(root.path()).unwrap_err();
    let SkillsError::Entry { path, reason } = &error else {
        panic!("an entry refused, not {error:?}");
    };
    assert!(path.ends_with("pdf-forms/secret.txt"), "{error}");
    assert!(reason.contains("symbolic link"), "{error}");
    // A link outside every skill is no matter.
    std::fs::remove_file(root.path().join("pdf-forms/secret.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.path().join("elsewhere/out")).unwrap();
    assert_eq!(Skills::from_dir(root.path()).unwrap().list().len(), 1);
}

#[test]
fn a_skill_md_at_the_root_or_a_missing_one_is_refused() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), &[("SKILL.md", SKILL_MD)]);
    let error = Skills::from_dir(root.path()).unwrap_err().to_string();
    assert!(
        error.contains("a skill is a folder below the directory"),
        "{error}"
    );
    let error = Skills::builder()
        .skill("pdf-forms", [("README.md", "x")])
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("has a SKILL.md"), "{error}");
    let error = Skills::builder()
        .skill("pdf-forms", [("SKILL.md", SKILL_MD), ("../escape.md", "x")])
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("none `.` or `..`"), "{error}");
    let missing = Skills::from_dir(root.path().join("nowhere")).unwrap_err();
    assert!(matches!(missing, SkillsError::Io { .. }), "{missing:?}");
}

#[test]
fn a_skill_file_and_a_resource_at_one_uri_are_refused() {
    use tool_mcp::resources::ResourceSpec;
    let built = Resources::builder()
        .text(ResourceSpec::fixed("skill://pdf-forms/SKILL.md", "x"), "x")
        .skills(skills())
        .build();
    assert!(built.is_err());
}
