//! `#[resource]` and `#[prompt]`: what they make, found through
//! `Resources::global()` and `Prompts::global()`, read and got directly and
//! through the server.

use serde_json::json;
use tool_mcp::prompts::{PromptArguments, PromptError, PromptMessage, Prompts};
use tool_mcp::resources::{
    Body, ReadRequest, Resource, ResourceError, Resources, UriParams, UriTemplate,
};
use tool_mcp::server::McpServer;
use tool_mcp::{prompt, resource};
use tool_runtime::{Registry, ToolContext};

use super::{Client, ERAS, Era, assert_error, plain};

/// A fixed text.
#[resource("test://macro/static", mime = "text/plain", title = "Static")]
fn macro_static() -> &'static str {
    "static text"
}

/// Bytes, of the default media type.
#[resource("test://macro/blob")]
fn macro_blob() -> Vec<u8> {
    vec![1, 2, 3]
}

/// One record, by number.
#[resource("test://macro/records/{id}/json{?format}", mime = "application/json")]
async fn record(
    #[resource(complete = record_ids)] id: u32,
    format: Option<String>,
    ctx: &ToolContext,
) -> Result<String, ResourceError> {
    let _ = ctx.caller();
    match id {
        0 => Err(ResourceError::NotFound),
        _ => Ok(json!({"id": id, "format": format}).to_string()),
    }
}

fn record_ids(typed: &str) -> Vec<String> {
    ["1", "12", "7"]
        .into_iter()
        .filter(|id| id.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// A file by path, whose errors are text.
#[resource("test://macro/files/{+path}", name = "files")]
fn file(path: &str) -> Result<String, String> {
    match path {
        "broken" => Err("the disk is gone".into()),
        _ => Ok(format!("file {path}")),
    }
}

/// Not in `Resources::global()`.
#[resource("test://macro/unlisted", register = false)]
fn unlisted() -> String {
    "unlisted".into()
}

/// For the user first, cached by every client for a minute.
#[resource(
    "test://macro/annotated",
    size = 5,
    audience = ["user"],
    priority = 0.5,
    cache = "public",
    ttl = "60s",
    register = false
)]
fn annotated() -> &'static str {
    "hello"
}

/// For the model, each read its caller's.
#[resource(
    "test://macro/annotated/{id}",
    audience = "assistant",
    priority = 1,
    cache = "private",
    register = false
)]
fn annotated_item(id: String) -> String {
    id
}

/// Reviews code.
#[prompt(title = "Code review")]
async fn code_review(
    /// The code to review
    code: String,
    /// Its language
    #[prompt(name = "lang", complete = languages)]
    language: Option<String>,
    times: Option<u32>,
) -> Vec<PromptMessage> {
    let language = language.unwrap_or_else(|| "any".into());
    let times = times.unwrap_or(1);
    vec![PromptMessage::user(format!(
        "Review ({language}, x{times}): {code}"
    ))]
}

fn languages(typed: &str) -> Vec<&'static str> {
    ["rust", "ruby", "python"]
        .into_iter()
        .filter(|language| language.starts_with(typed))
        .collect()
}

/// Says hello.
#[prompt(name = "greeting")]
fn greet(name: &str) -> Result<String, PromptError> {
    match name {
        "" => Err(PromptError::InvalidArgument {
            name: "name".into(),
            reason: "empty".into(),
        }),
        _ => Ok(format!("Say hello to {name}.")),
    }
}

async fn read(resource: &dyn Resource, uri: &str, params: UriParams) -> Vec<Body> {
    let request = ReadRequest::new(uri, params, ToolContext::default());
    let contents = resource.read(request).await.unwrap();
    contents.into_iter().map(|contents| contents.body).collect()
}

#[tokio::test]
async fn the_global_resources_hold_every_registered_resource() {
    let resources = Resources::global();
    let uris: Vec<String> = resources
        .list()
        .iter()
        .map(|resource| match &resource.spec().uri {
            tool_mcp::resources::ResourceUri::Fixed(uri) => uri.to_string(),
            tool_mcp::resources::ResourceUri::Template(template) => template.to_string(),
        })
        .collect();
    assert_eq!(
        uris,
        [
            "test://macro/blob",
            "test://macro/files/{+path}",
            "test://macro/records/{id}/json{?format}",
            "test://macro/static",
        ]
    );
    let spec = MacroStaticResource.spec();
    assert_eq!(spec.name, "macro_static");
    assert_eq!(spec.title.as_deref(), Some("Static"));
    assert_eq!(spec.description.as_deref(), Some("A fixed text."));
    assert_eq!(spec.mime_type.as_deref(), Some("text/plain"));
    assert_eq!(FileResource.spec().name, "files");
    // Given by value, an unregistered resource reads as any other.
    let body = read(&UnlistedResource, "test://macro/unlisted", UriParams::new()).await;
    assert_eq!(body, [Body::Text("unlisted".into())]);
}

#[tokio::test]
async fn a_template_resource_reads_its_variables_into_its_parameters() {
    let resources = Resources::global();
    let uri = "test://macro/records/12/json?format=short";
    let (resource, params) = resources.resolve(uri).unwrap();
    let request = ReadRequest::new(uri, params, ToolContext::default());
    let contents = resource.read(request).await.unwrap();
    assert_eq!(contents[0].uri, uri);
    assert_eq!(contents[0].mime_type.as_deref(), Some("application/json"));
    assert_eq!(
        contents[0].body,
        Body::Text(json!({"id": 12, "format": "short"}).to_string())
    );
    // Not a number: the parameter's FromStr refuses it.
    let uri = "test://macro/records/twelve/json";
    let (resource, params) = resources.resolve(uri).unwrap();
    let request = ReadRequest::new(uri, params, ToolContext::default());
    let error = resource.read(request).await.unwrap_err();
    assert!(
        matches!(&error, ResourceError::InvalidParams(reason) if reason.contains("`id`")),
        "{error}"
    );
    // Bytes of the default media type; a `&str` parameter.
    let (blob, _) = resources.resolve("test://macro/blob").unwrap();
    let request = ReadRequest::new(
        "test://macro/blob",
        UriParams::new(),
        ToolContext::default(),
    );
    let contents = blob.read(request).await.unwrap();
    assert_eq!(
        contents[0].mime_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(contents[0].body, Body::Blob(vec![1, 2, 3]));
    let (files, params) = resources.resolve("test://macro/files/a/b.txt").unwrap();
    let body = read(&*files, "test://macro/files/a/b.txt", params).await;
    assert_eq!(body, [Body::Text("file a/b.txt".into())]);
}

#[tokio::test]
async fn macro_resources_are_read_through_the_server() {
    let server = McpServer::new(Registry::builder().build().unwrap())
        .with_resources(Resources::global().clone())
        .with_prompts(Prompts::global().clone());
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let read = client
            .request(
                "resources/read",
                json!({"uri": "test://macro/records/7/json"}),
            )
            .await;
        let mut read = plain(era, &read, era == Era::Stateless);
        let text = read["contents"][0]["text"].take();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(text.as_str().unwrap()).unwrap(),
            json!({"id": 7, "format": null})
        );
        assert_eq!(
            read,
            json!({"contents": [{"uri": "test://macro/records/7/json",
                "mimeType": "application/json", "text": null}]})
        );
        // A `ResourceError` keeps its meaning; a text error is a failure.
        let missing = client
            .request(
                "resources/read",
                json!({"uri": "test://macro/records/0/json"}),
            )
            .await;
        assert_error(
            &missing,
            -32602,
            json!({"uri": "test://macro/records/0/json"}),
        );
        let broken = client
            .request(
                "resources/read",
                json!({"uri": "test://macro/files/broken"}),
            )
            .await;
        assert_eq!(broken["error"]["code"], -32603, "{broken}");
        assert!(
            broken["error"]["message"]
                .as_str()
                .unwrap()
                .contains("the disk is gone"),
            "{broken}"
        );
        let templates = client.request("resources/templates/list", json!({})).await;
        let templates = plain(era, &templates, true);
        assert_eq!(
            templates["resourceTemplates"][0],
            json!({"uriTemplate": "test://macro/files/{+path}", "name": "files",
                "description": "A file by path, whose errors are text."})
        );
        let completion = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://macro/records/{id}/json{?format}"},
                    "argument": {"name": "id", "value": "1"}}),
            )
            .await;
        assert_eq!(
            plain(era, &completion, false)["completion"]["values"],
            json!(["1", "12"])
        );
    }
}

#[tokio::test]
async fn macro_prompts_are_got_with_their_arguments() {
    let prompts = Prompts::global();
    let names: Vec<String> = prompts
        .list()
        .iter()
        .map(|prompt| prompt.spec().name.to_string())
        .collect();
    assert_eq!(names, ["code_review", "greeting"]);
    let server = McpServer::new(Registry::builder().build().unwrap()).with_prompts(prompts.clone());
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let list = client.request("prompts/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true)["prompts"][0],
            json!({"name": "code_review", "title": "Code review", "description": "Reviews code.",
            "arguments": [
                {"name": "code", "description": "The code to review", "required": true},
                {"name": "lang", "description": "Its language", "required": false},
                {"name": "times", "required": false},
            ]})
        );
        let got = client
            .request(
                "prompts/get",
                json!({"name": "code_review", "arguments": {"code": "fn f() {}", "lang": "rust", "times": "2"}}),
            )
            .await;
        assert_eq!(
            plain(era, &got, false),
            json!({"messages": [{"role": "user", "content":
                {"type": "text", "text": "Review (rust, x2): fn f() {}"}}]})
        );
        let missing = client
            .request(
                "prompts/get",
                json!({"name": "code_review", "arguments": {"lang": "rust"}}),
            )
            .await;
        assert_error(&missing, -32602, json!({"argument": "code"}));
        let unparsed = client
            .request(
                "prompts/get",
                json!({"name": "code_review", "arguments": {"code": "x", "times": "twice"}}),
            )
            .await;
        assert_eq!(unparsed["error"]["code"], -32602, "{unparsed}");
        assert_eq!(unparsed["error"]["data"]["argument"], "times", "{unparsed}");
        let completion = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "code_review"},
                    "argument": {"name": "lang", "value": "ru"}}),
            )
            .await;
        assert_eq!(
            plain(era, &completion, false)["completion"]["values"],
            json!(["rust", "ruby"])
        );
    }
}

#[tokio::test]
async fn a_prompt_error_keeps_its_meaning() {
    let prompt = Prompts::global().get("greeting").unwrap();
    let mut arguments = PromptArguments::new();
    arguments.insert("name", "Ada");
    let got = prompt.get(arguments, ToolContext::default()).await.unwrap();
    assert_eq!(got.messages, [PromptMessage::user("Say hello to Ada.")]);
    let mut arguments = PromptArguments::new();
    arguments.insert("name", "");
    let error = prompt
        .get(arguments, ToolContext::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error, PromptError::InvalidArgument { .. }),
        "{error}"
    );
}

/// The templates the macro's compile-time grammar refuses (its own unit
/// test reads the same list); the runtime's `UriTemplate` refuses them too.
#[test]
fn the_runtime_refuses_the_templates_the_macro_refuses() {
    for bad in [
        "{id}/data",
        "no-scheme/{id}",
        "test://{a}{b}",
        "test://{a}/{a}",
        "test://{a",
        "test://a}",
        "test://{#frag}",
        "test://{?q}/more",
    ] {
        assert!(UriTemplate::parse(bad).is_err(), "{bad}");
    }
    for good in [
        "test://template/{id}/data{?q,page}",
        "file:///{+path}",
        "test://static-text",
    ] {
        assert!(UriTemplate::parse(good).is_ok(), "{good}");
    }
}

#[tokio::test]
async fn resource_keys_give_the_size_annotations_and_caching() {
    let resources = Resources::builder()
        .resource(AnnotatedResource)
        .resource(AnnotatedItemResource)
        .build()
        .unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap()).with_resources(resources);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [{
                "uri": "test://macro/annotated", "name": "annotated",
                "description": "For the user first, cached by every client for a minute.",
                "size": 5, "annotations": {"audience": ["user"], "priority": 0.5},
            }]}),
            "{era:?}"
        );
        let templates = client.request("resources/templates/list", json!({})).await;
        let templates = plain(era, &templates, true);
        assert_eq!(
            templates["resourceTemplates"][0]["annotations"],
            json!({"audience": ["assistant"], "priority": 1.0}),
            "{era:?}"
        );
        if era == Era::Stateless {
            let read = client
                .request("resources/read", json!({"uri": "test://macro/annotated"}))
                .await;
            assert_eq!(read["result"]["ttlMs"], 60_000, "{read}");
            assert_eq!(read["result"]["cacheScope"], "public", "{read}");
            let read = client
                .request("resources/read", json!({"uri": "test://macro/annotated/7"}))
                .await;
            assert_eq!(read["result"]["ttlMs"], 0, "{read}");
            assert_eq!(read["result"]["cacheScope"], "private", "{read}");
        }
    }
}
