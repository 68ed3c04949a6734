//! MCP Apps: a view served as a `ui://` resource with its `_meta.ui`, and
//! the tools linked to it, whose `tools/list` entries carry `_meta.ui`
//! beside the `_meta` they have already.

use serde_json::{Value, json};
use tool_mcp::apps::{App, AppError, AppLinks, Csp, MIME_TYPE, Permission, ToolUi, Visibility};
use tool_mcp::resources::Resources;
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, tool};

use super::{Client, ERAS, Era, plain};

const VIEW: &str = "ui://counter/view";
const HTML: &str = "<!doctype html><p id=count>0</p>";

/// Shows the counter.
#[tool(version = "2.0.0", register = false)]
fn counter_show() -> i64 {
    0
}

/// Adds one to the counter.
#[tool(register = false)]
fn counter_add() -> i64 {
    1
}

/// Resets the counter.
#[tool(register = false)]
fn counter_reset() -> i64 {
    0
}

/// Says hello; no view.
#[tool(register = false)]
fn hello() -> &'static str {
    "hello"
}

fn registry() -> Registry {
    Registry::builder()
        .tool(CounterShowTool)
        .tool(CounterAddTool)
        .tool(CounterResetTool)
        .tool(HelloTool)
        .build()
        .unwrap()
}

fn view() -> App {
    App::builder(VIEW, HTML)
        .title("Counter")
        .csp(
            Csp::new()
                .connect_domains(["https://api.example.com"])
                .resource_domains(["https://*.cdn.example.com"]),
        )
        .permission(Permission::ClipboardWrite)
        .prefers_border(true)
        .build()
        .unwrap()
}

fn links() -> AppLinks {
    AppLinks::from_iter([
        ("counter_show", ToolUi::new(VIEW).unwrap()),
        (
            "counter_add",
            ToolUi::new(VIEW).unwrap().with_visibility(Visibility::App),
        ),
        (
            "counter_reset",
            ToolUi::new(VIEW)
                .unwrap()
                .with_visibility(Visibility::Model),
        ),
    ])
}

fn server(links: &AppLinks) -> McpServer {
    let resources = Resources::builder().resource(view()).build().unwrap();
    McpServer::new(registry())
        .with_resources(resources)
        .with_app_links(links.clone())
}

/// Each tool's `_meta` by name, in a `tools/list` response (`null` for
/// none).
fn metas(response: &Value) -> Value {
    let tools = response["result"]["tools"].as_array().expect("tools");
    tools
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().unwrap().to_owned();
            (name, tool.get("_meta").cloned().unwrap_or(Value::Null))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[tokio::test]
async fn linked_tools_list_their_view_beside_their_version() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(&links()), era).await;
        let list = client.request("tools/list", json!({})).await;
        assert_eq!(
            metas(&list),
            json!({
                "counter_add": {"ui": {"resourceUri": VIEW, "visibility": ["app"]}},
                "counter_reset": {"ui": {"resourceUri": VIEW, "visibility": ["model"]}},
                "counter_show": {
                    "io.github.tool-runtime/version": "2.0.0",
                    "ui": {"resourceUri": VIEW},
                },
                "hello": null,
            }),
            "{era:?}"
        );
    }
    // What `McpServer::tools` gives is the same.
    let tools = server(&links()).tools();
    assert_eq!(tools[0]["_meta"]["ui"]["visibility"], json!(["app"]));
}

#[tokio::test]
async fn the_view_is_listed_and_read_with_its_media_type_and_csp() {
    let ui = json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": true,
    });
    for era in ERAS {
        let (mut client, _) = Client::start(server(&links()), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [{
                "uri": VIEW, "name": VIEW, "title": "Counter", "mimeType": MIME_TYPE,
                "size": HTML.len(), "_meta": {"ui": ui},
            }]}),
            "{era:?}"
        );
        let read = client.request("resources/read", json!({"uri": VIEW})).await;
        assert_eq!(
            plain(era, &read, true),
            json!({"contents": [{
                "uri": VIEW, "mimeType": "text/html;profile=mcp-app", "text": HTML,
                "_meta": {"ui": ui},
            }]}),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn the_tool_list_follows_changes_of_the_links() {
    let links = links();
    let server = server(&links);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let before = metas(&client.request("tools/list", json!({})).await);
        assert_eq!(before["hello"], Value::Null, "{era:?}");

        links.insert("hello", ToolUi::new("ui://hello/view").unwrap());
        links.remove("counter_add");
        let after = metas(&client.request("tools/list", json!({})).await);
        assert_eq!(
            after["hello"],
            json!({"ui": {"resourceUri": "ui://hello/view"}}),
            "{era:?}"
        );
        assert_eq!(after["counter_add"], Value::Null, "{era:?}");

        links.remove("hello");
        links.insert(
            "counter_add",
            ToolUi::new(VIEW).unwrap().with_visibility(Visibility::App),
        );
        let again = metas(&client.request("tools/list", json!({})).await);
        assert_eq!(again, before, "{era:?}");
    }
}

#[tokio::test]
async fn a_link_to_a_tool_not_served_is_left_out() {
    let links = links();
    links.insert("no_such_tool", ToolUi::new(VIEW).unwrap());
    let tools = server(&links).tools();
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["counter_add", "counter_reset", "counter_show", "hello"]
    );
}

#[test]
fn csp_origins_and_view_uris_are_checked() {
    let refused = |csp: Csp| App::builder(VIEW, HTML).csp(csp).build().unwrap_err();
    for (csp, list, origin) in [
        (
            Csp::new().connect_domains(["api.example.com"]),
            "connectDomains",
            "api.example.com",
        ),
        (
            Csp::new().resource_domains(["https://cdn.example.com/lib.js"]),
            "resourceDomains",
            "https://cdn.example.com/lib.js",
        ),
        (
            Csp::new().frame_domains(["https://*example.com"]),
            "frameDomains",
            "https://*example.com",
        ),
        (
            Csp::new().base_uri_domains(["https://example.com:99999"]),
            "baseUriDomains",
            "https://example.com:99999",
        ),
        (
            Csp::new().connect_domains(["https://ok.example.com", "https://user@example.com"]),
            "connectDomains",
            "https://user@example.com",
        ),
    ] {
        let error = refused(csp);
        assert!(
            matches!(&error, AppError::InvalidOrigin { list: l, origin: o, .. } if *l == list && o == origin),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains(origin) && message.contains(list),
            "{message}"
        );
    }
    for origin in [
        "https://api.example.com",
        "wss://live.example.com:8443",
        "https://*.example.com",
        "http://localhost:3000",
        "http://127.0.0.1:8080",
        "http://[::1]:8080",
    ] {
        let built = App::builder(VIEW, HTML)
            .csp(Csp::new().connect_domains([origin]))
            .build();
        assert!(built.is_ok(), "{origin}: {built:?}");
    }
    for uri in ["https://example.com/view", "ui://", "counter/view"] {
        let error = App::builder(uri, HTML).build().unwrap_err();
        assert_eq!(error, AppError::NotUi(uri.into()));
        assert!(error.to_string().contains("ui://"), "{error}");
        assert_eq!(ToolUi::new(uri).unwrap_err(), AppError::NotUi(uri.into()));
    }
}

#[tokio::test]
async fn a_change_of_the_links_is_told_to_sessions_and_listens() {
    let links = links();
    let server = server(&links);
    let (mut session, _) = Client::start(server.clone(), Era::Session).await;
    // A request answered after `notifications/initialized`: the session
    // follows the changes by then.
    session.request("tools/list", json!({})).await;
    let (mut stateless, _) = Client::start(server, Era::Stateless).await;
    let listen = stateless
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
        .await;
    let ack = stateless.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    links.insert("hello", ToolUi::new("ui://hello/view").unwrap());
    let changed = session.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    let changed = stateless.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    let list = metas(&session.request("tools/list", json!({})).await);
    assert_eq!(
        list["hello"],
        json!({"ui": {"resourceUri": "ui://hello/view"}})
    );

    assert!(links.remove("hello").is_some());
    let changed = session.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    let changed = stateless.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
}
