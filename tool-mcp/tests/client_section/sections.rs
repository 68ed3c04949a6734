//! A registry file's `resources`, `prompts` and `skills` sections
//! (`tool_mcp::sections`): what each serves, read from files beside the
//! registry file, and each mistake at its line and column.

use std::path::Path;

use tool_manifest::{Manifest, Section};
use tool_mcp::completion::CompleteRequest;
use tool_mcp::prompts::{PromptArguments, Prompts};
use tool_mcp::resources::{Body, ReadRequest, ResourceError, Resources};
use tool_mcp::sections::{self, PromptsSection, ResourcesSection, SkillsSection};
use tool_runtime::ToolContext;

/// The sections' readers.
const SECTIONS: [&dyn tool_manifest::AnySection; 3] =
    [&ResourcesSection, &PromptsSection, &SkillsSection];

/// The mistakes of `text` as `LINE:COLUMN: message`: those reading finds,
/// then those loading finds (files beside a registry file in `dir`).
fn problems_in(dir: &Path, text: &str) -> Vec<String> {
    let path = dir.join("tools.yaml");
    std::fs::write(&path, text).unwrap();
    let manifest = Manifest::from_path_with(&path, &SECTIONS).unwrap();
    let mut problems: Vec<String> = manifest
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Err(error) = sections::load(&manifest) {
        problems.extend(error.problems.iter().map(ToString::to_string));
    }
    problems
}

/// The mistakes of `text`, in an empty folder.
fn problems(text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    problems_in(dir.path(), text)
}

/// The resources and prompts of the registry file `text`, in `dir`.
fn load(dir: &Path, text: &str) -> (Resources, Prompts) {
    let path = dir.join("tools.yaml");
    std::fs::write(&path, text).unwrap();
    let manifest = Manifest::from_path_with(&path, &SECTIONS).unwrap();
    assert_eq!(manifest.problems(), &[]);
    let loaded = sections::load(&manifest).unwrap();
    let resources = loaded.resources(Resources::builder()).build().unwrap();
    let prompts = loaded.prompts(Prompts::builder()).build().unwrap();
    (resources, prompts)
}

/// What reading `uri` gives: its body and media type.
async fn read(resources: &Resources, uri: &str) -> Result<(Body, Option<String>), ResourceError> {
    let (resource, params) = resources.resolve(uri).ok_or(ResourceError::NotFound)?;
    let mut contents = resource
        .read(ReadRequest::new(uri, params, ToolContext::new()))
        .await?;
    assert_eq!(contents.len(), 1);
    let contents = contents.remove(0);
    assert_eq!(contents.uri, uri);
    Ok((contents.body, contents.mime_type))
}

fn text(body: Body) -> String {
    match body {
        Body::Text(text) => text,
        Body::Blob(bytes) => panic!("bytes, not text: {bytes:?}"),
    }
}

const RESOURCES: &str = "\
resources:
  - uri: docs://hello
    text: Hello
    description: A greeting
  - uri: docs://readme
    file: docs/README.md
    name: readme
    title: The readme
  - uri: docs://logo
    file: logo.png
  - uri: notes://{name}
    dir: notes
    mime: text/markdown
";

#[tokio::test]
async fn resources_of_text_files_and_folders_are_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::create_dir_all(dir.path().join("notes/deeper")).unwrap();
    std::fs::write(dir.path().join("docs/README.md"), "# Readme\n").unwrap();
    std::fs::write(dir.path().join("logo.png"), [0x89, 0x50, 0xff]).unwrap();
    std::fs::write(dir.path().join("notes/a.md"), "note a").unwrap();
    std::fs::write(dir.path().join("notes/b.md"), "note b").unwrap();
    std::fs::write(dir.path().join("notes/deeper/c.md"), "note c").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    let (resources, _) = load(dir.path(), RESOURCES);

    let hello = resources.get("docs://hello").unwrap();
    assert_eq!(hello.spec().description.as_deref(), Some("A greeting"));
    let (body, mime) = read(&resources, "docs://hello").await.unwrap();
    assert_eq!(
        (text(body), mime.as_deref()),
        ("Hello".into(), Some("text/plain"))
    );

    let readme = resources.get("docs://readme").unwrap();
    assert_eq!(readme.spec().name, "readme");
    assert_eq!(readme.spec().title.as_deref(), Some("The readme"));
    let (body, mime) = read(&resources, "docs://readme").await.unwrap();
    assert_eq!(
        (text(body), mime.as_deref()),
        ("# Readme\n".into(), Some("text/markdown"))
    );
    // Read at each read: an edit shows.
    std::fs::write(dir.path().join("docs/README.md"), "# Edited\n").unwrap();
    let (body, _) = read(&resources, "docs://readme").await.unwrap();
    assert_eq!(text(body), "# Edited\n");

    let (body, mime) = read(&resources, "docs://logo").await.unwrap();
    assert_eq!(body, Body::Blob(vec![0x89, 0x50, 0xff]));
    assert_eq!(mime.as_deref(), Some("image/png"));

    let (body, mime) = read(&resources, "notes://a.md").await.unwrap();
    assert_eq!(
        (text(body), mime.as_deref()),
        ("note a".into(), Some("text/markdown"))
    );
    let notes = resources.get("notes://{name}").unwrap();
    let completion = notes
        .complete(CompleteRequest::new("name", "", ToolContext::new()))
        .await
        .unwrap();
    assert_eq!(completion.values, ["a.md", "b.md"]);
}

#[cfg(unix)]
#[tokio::test]
async fn a_folder_template_reads_only_its_own_plain_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("notes/deeper")).unwrap();
    std::fs::write(dir.path().join("notes/a.md"), "note a").unwrap();
    std::fs::write(dir.path().join("notes/deeper/c.md"), "note c").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("secret.txt"),
        dir.path().join("notes/link.md"),
    )
    .unwrap();
    let (resources, _) = load(
        dir.path(),
        "resources:\n  - uri: notes://{name}\n    dir: notes\n",
    );
    assert_eq!(
        text(read(&resources, "notes://a.md").await.unwrap().0),
        "note a"
    );
    for refused in [
        "notes://..",
        "notes://.",
        "notes://%2E%2E",
        "notes://..%2Fsecret.txt",
        "notes://deeper%2Fc.md",
        "notes://deeper%5Cc.md",
        "notes://a.md%00",
        "notes://deeper",
        "notes://link.md",
        "notes://missing.md",
    ] {
        let result = read(&resources, refused).await;
        assert!(
            matches!(result, Err(ResourceError::NotFound)),
            "{refused}: {result:?}"
        );
    }
    let notes = resources.get("notes://{name}").unwrap();
    let completion = notes
        .complete(CompleteRequest::new("name", "", ToolContext::new()))
        .await
        .unwrap();
    assert_eq!(completion.values, ["a.md"], "no folder, no link");
}

#[tokio::test]
async fn a_file_larger_than_a_read_gives_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let big = std::fs::File::create(dir.path().join("big.bin")).unwrap();
    let limit = Resources::DEFAULT_MAX_READ_BYTES;
    big.set_len(limit as u64 + 1).unwrap();
    let (resources, _) = load(
        dir.path(),
        "resources:\n  - uri: big://file\n    file: big.bin\n",
    );
    let result = read(&resources, "big://file").await;
    assert!(
        matches!(result, Err(ResourceError::TooLarge { bytes, limit: l }) if bytes == limit + 1 && l == limit),
        "{result:?}"
    );
}

const PROMPTS: &str = "\
prompts:
  - name: review
    title: Review
    description: Review code
    arguments:
      - {name: code, description: The code, required: true}
      - {name: language, complete: [rust, python, go, ruby]}
    messages:
      - {role: user, text: \"Review this {language} code:\\n{code}\"}
      - {role: assistant, text: \"{{braces}} stay\"}
";

#[tokio::test]
async fn prompts_make_their_messages_of_the_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let (_, prompts) = load(dir.path(), PROMPTS);
    let review = prompts.get("review").unwrap();
    let spec = review.spec();
    assert_eq!(spec.title.as_deref(), Some("Review"));
    assert_eq!(spec.description.as_deref(), Some("Review code"));
    assert_eq!(spec.arguments.len(), 2);
    assert!(spec.arguments[0].required);
    assert_eq!(spec.arguments[0].description.as_deref(), Some("The code"));
    assert!(!spec.arguments[1].required);

    let mut arguments = PromptArguments::new();
    arguments.insert("code", "fn main() {}");
    arguments.insert("language", "rust");
    let got = review.get(arguments, ToolContext::new()).await.unwrap();
    let messages = serde_json::to_value(
        got.messages
            .iter()
            .map(|m| (format!("{:?}", m.role), m.content.clone()))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert_eq!(
        messages,
        serde_json::json!([
            ["User", {"text": "Review this rust code:\nfn main() {}"}],
            ["Assistant", {"text": "{braces} stay"}]
        ])
    );
    assert_eq!(got.description.as_deref(), Some("Review code"));

    // An optional argument not given is empty.
    let mut arguments = PromptArguments::new();
    arguments.insert("code", "x");
    let got = review.get(arguments, ToolContext::new()).await.unwrap();
    let first = serde_json::to_value(&got.messages[0].content).unwrap();
    assert_eq!(first["text"], "Review this  code:\nx");

    let completion = review
        .complete(CompleteRequest::new("language", "r", ToolContext::new()))
        .await
        .unwrap();
    assert_eq!(completion.values, ["rust", "ruby"]);
}

#[tokio::test]
async fn a_skills_folder_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("skills/pdf-forms");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\n# PDF forms\n",
    )
    .unwrap();
    let (resources, _) = load(dir.path(), "skills:\n  - dir: skills\n");
    let skills = resources.skills().unwrap();
    assert_eq!(skills.list()[0].name(), "pdf-forms");
    let (body, _) = read(&resources, "skill://pdf-forms/SKILL.md")
        .await
        .unwrap();
    assert!(text(body).contains("# PDF forms"));
}

#[test]
fn each_mistake_is_at_its_place_saying_what_is_expected() {
    let cases: &[(&str, &str)] = &[
        (
            "resources: {uri: x://y}\n",
            "1:12: `resources` must be a list of resources, each a `uri` with its `text`, `file` or `dir`",
        ),
        (
            "resources:\n  - uri: x://y\n    text: hi\n    mime_type: text/plain\n",
            "4:5: unknown key \"mime_type\" in resource `x://y`; it takes `uri`, `name`, `title`, \
             `description`, `mime`, `text`, `file` and `dir`",
        ),
        (
            "resources:\n  - text: hi\n",
            "2:5: a resource needs `uri`: the URI clients read it at",
        ),
        (
            "resources:\n  - uri: x://y\n    text: [hi]\n",
            "3:5: `text` of resource `x://y` is text",
        ),
        (
            "resources:\n  - uri: x://y\n",
            "2:5: resource `x://y` needs its contents: `text`, `file` (a path) or `dir` (a folder, \
             for a URI template)",
        ),
        (
            "resources:\n  - uri: x://y\n    text: hi\n    file: a.txt\n",
            "4:5: resource `x://y` takes one of `text`, `file` and `dir`, not text and file",
        ),
        (
            "resources:\n  - uri: x://y\n    file: ../secret.txt\n",
            "3:5: `file` of resource `x://y` is a path relative to the registry file's folder, \
             below it (no `..`, not absolute): \"../secret.txt\" is not",
        ),
        (
            "resources:\n  - uri: x://y\n    file: /etc/passwd\n",
            "3:5: `file` of resource `x://y` is a path relative to the registry file's folder, \
             below it (no `..`, not absolute): \"/etc/passwd\" is not",
        ),
        (
            "resources:\n  - uri: x://{name}\n    file: a.txt\n",
            "2:10: resource `x://{name}`: `uri` has the template variable `name`: a template names \
             the files of a folder (`dir`), not one `file` or `text`",
        ),
        (
            "resources:\n  - uri: x://notes\n    dir: notes\n",
            "2:10: resource `x://notes`: a `dir` resource's `uri` is a template whose one variable \
             is a file's name, such as notes://{name}",
        ),
        (
            "resources:\n  - uri: x://{a}/{b}\n    dir: notes\n",
            "2:10: resource `x://{a}/{b}`: a `dir` resource's `uri` has one variable, a file's \
             name; this one has 2",
        ),
        (
            "resources:\n  - {uri: 'x://y', text: a}\n  - {uri: 'x://y', text: b}\n",
            "3:6: resource `x://y` is at line 2 already: give each resource its own URI",
        ),
        (
            "prompts:\n  - name: p\n    messages:\n      - {role: user, text: \"Hi {who}\"}\n",
            "4:28: prompt \"p\": the message names `{who}`, which is not among its arguments (it \
             has none)",
        ),
        (
            "prompts:\n  - name: p\n    messages:\n      - {role: user, text: \"Hi {\"}\n",
            "4:28: prompt \"p\": a lone `{` in the message: `{argument}` is an argument's value, \
             `{{` and `}}` are braces",
        ),
        (
            "prompts:\n  - name: p\n    messages:\n      - {role: system, text: Hi}\n",
            "4:16: `role` of a message of prompt \"p\" is `user` or `assistant`, not \"system\"",
        ),
        (
            "prompts:\n  - name: p\n",
            "2:5: prompt \"p\" needs `messages`: a list of messages, each a `role` (user or \
             assistant) and a `text`",
        ),
        (
            "prompts:\n  - name: p\n    arguments:\n      - {name: a, required: yes}\n    \
             messages: [{role: user, text: Hi}]\n",
            "4:19: `required` of an argument of prompt \"p\" is `true` or `false`",
        ),
        (
            "prompts:\n  - name: p\n    arguments: [{name: a}, {name: a}]\n    messages: [{role: \
             user, text: Hi}]\n",
            "3:35: an argument of prompt \"p\" has the argument `a` twice",
        ),
        (
            "prompts:\n  - name: p\n    arguments: [{name: a, complete: rust}]\n    messages: \
             [{role: user, text: Hi}]\n",
            "3:27: `complete` of an argument of prompt \"p\" is a list of texts",
        ),
        (
            "prompts:\n  - name: p\n    messages: [{role: user, text: Hi}]\n  - name: p\n    \
             messages: [{role: user, text: Ho}]\n",
            "4:5: prompt \"p\" is at line 2 already: give each prompt its own name",
        ),
        (
            "skills:\n  - dir: ../skills\n",
            "2:5: `dir` of a skills folder is a path relative to the registry file's folder, below \
             it (no `..`, not absolute): \"../skills\" is not",
        ),
        (
            "skills:\n  - {dir: ., path: more}\n",
            "2:14: unknown key \"path\" in a skills folder; it takes `dir`",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, expected) in cases {
        let found = problems(text);
        if found != [*expected] {
            wrong.push(format!("{text}\nexpected: {expected}\nfound: {found:#?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn a_file_or_folder_not_found_is_a_mistake_at_its_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes"), "a file, not a folder").unwrap();
    let found = problems_in(
        dir.path(),
        "resources:\n  - uri: x://y\n    file: missing.md\n  - uri: n://{name}\n    dir: notes\n\
         skills:\n  - dir: no-skills\n",
    );
    let base = dir.path().display();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].starts_with(&format!(
            "3:11: resource `x://y`: the file missing.md ({base}/missing.md): "
        )),
        "{found:#?}"
    );
    assert_eq!(
        found[1],
        format!("5:10: resource `n://{{name}}`: the folder notes ({base}/notes): is not a folder")
    );
    assert!(
        found[2].starts_with(&format!(
            "7:10: the skills folder no-skills: cannot read {base}/no-skills"
        )),
        "{found:#?}"
    );
}

#[test]
fn the_schemas_describe_each_entry() {
    let resources = ResourcesSection.schema();
    let entry = &resources["items"];
    assert_eq!(entry["additionalProperties"], false);
    assert_eq!(entry["required"], serde_json::json!(["uri"]));
    assert_eq!(entry["oneOf"].as_array().unwrap().len(), 3);
    let prompts = PromptsSection.schema();
    assert_eq!(
        prompts["items"]["required"],
        serde_json::json!(["name", "messages"])
    );
    let skills = SkillsSection.schema();
    assert_eq!(skills["items"]["required"], serde_json::json!(["dir"]));
}
