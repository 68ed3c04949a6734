//! `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe`, their errors and
//! limits.

use serde_json::json;
use tool_mcp::resources::{ResourceSpec, Resources};
use tool_mcp::server::McpServer;
use tool_runtime::Registry;

use futures_util::future::BoxFuture;
use tool_mcp::resources::{Contents, ReadRequest, Resource, ResourceError};

use super::{Client, ERAS, Era, assert_error, plain, server};

/// A resource of its own kind: its name as its text.
struct Note(ResourceSpec);

impl Resource for Note {
    fn spec(&self) -> &ResourceSpec {
        &self.0
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        let text = self.0.name.to_string();
        Box::pin(async move { Ok(vec![Contents::text(request.uri, "text/plain", text)]) })
    }
}

#[tokio::test]
async fn resources_list_gives_the_fixed_uris_in_uri_order() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [
                {"uri": "test://static-binary", "name": "static-binary", "mimeType": "image/png", "size": 8},
                {"uri": "test://static-text", "name": "static-text", "description": "A text",
                 "mimeType": "text/plain", "size": 48},
            ]}),
            "{era:?}"
        );
        let templates = client.request("resources/templates/list", json!({})).await;
        assert_eq!(
            plain(era, &templates, true),
            json!({"resourceTemplates": [
                {"uriTemplate": "test://template/{id}/data", "name": "template-data",
                 "mimeType": "application/json"},
            ]}),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn a_cursor_the_server_never_gave_is_refused() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        for method in ["resources/list", "resources/templates/list", "prompts/list"] {
            let list = client.request(method, json!({"cursor": "abc"})).await;
            assert_eq!(list["error"]["code"], -32602, "{era:?} {method}: {list}");
        }
    }
}

#[tokio::test]
async fn resources_read_gives_text_blobs_and_template_contents() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let text = client
            .request("resources/read", json!({"uri": "test://static-text"}))
            .await;
        assert_eq!(
            plain(era, &text, true),
            json!({"contents": [{"uri": "test://static-text", "mimeType": "text/plain",
                "text": "This is the content of the static text resource."}]})
        );
        if era == Era::Stateless {
            // Contents that never change: public, for the list lifetime.
            assert_eq!(text["result"]["cacheScope"], "public");
            assert_eq!(text["result"]["ttlMs"], 60_000);
        }
        let blob = client
            .request("resources/read", json!({"uri": "test://static-binary"}))
            .await;
        assert_eq!(
            plain(era, &blob, true)["contents"][0],
            json!({"uri": "test://static-binary", "mimeType": "image/png", "blob": "iVBORw0KGgo="})
        );
        let data = client
            .request("resources/read", json!({"uri": "test://template/123/data"}))
            .await;
        let contents = &plain(era, &data, true)["contents"][0];
        assert_eq!(contents["uri"], "test://template/123/data");
        let text: serde_json::Value =
            serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, json!({"id": "123", "templateTest": true}));
        if era == Era::Stateless {
            // A template's reads: not cached unless it says so.
            assert_eq!(data["result"]["cacheScope"], "private");
            assert_eq!(data["result"]["ttlMs"], 0);
        }
    }
}

#[tokio::test]
async fn reading_an_unknown_uri_is_invalid_params_with_the_uri() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        for uri in [
            "test://nonexistent-resource-for-conformance-testing",
            // A template's value may not hold a `/`, encoded or not.
            "test://template/1%2F2/data",
            "test://template/1/2/data",
            "test://template//data",
        ] {
            let read = client.request("resources/read", json!({"uri": uri})).await;
            assert_error(&read, -32602, json!({"uri": uri}));
            assert_eq!(read["error"]["message"], "Resource not found");
        }
        let read = client.request("resources/read", json!({"uri": 7})).await;
        assert_eq!(read["error"]["code"], -32602, "{read}");
    }
}

#[tokio::test]
async fn a_failing_or_empty_read_is_an_internal_error() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        for id in ["broken", "empty"] {
            let uri = format!("test://template/{id}/data");
            let read = client.request("resources/read", json!({"uri": uri})).await;
            assert_error(&read, -32603, json!({"uri": uri}));
        }
    }
}

#[tokio::test]
async fn a_read_over_the_limit_is_refused_with_its_size() {
    let resources = Resources::builder()
        .text(ResourceSpec::fixed("test://big", "big"), "x".repeat(11))
        .text(ResourceSpec::fixed("test://small", "small"), "x".repeat(10))
        .max_read_bytes(10)
        .build()
        .unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap()).with_resources(resources);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let read = client
            .request("resources/read", json!({"uri": "test://big"}))
            .await;
        assert_error(
            &read,
            -32603,
            json!({"uri": "test://big", "bytes": 11, "limit": 10}),
        );
        let read = client
            .request("resources/read", json!({"uri": "test://small"}))
            .await;
        assert!(read["result"].is_object(), "{read}");
    }
}

#[tokio::test]
async fn reads_count_against_the_calls_a_session_runs_at_once() {
    let (gate, opened) = tokio::sync::watch::channel(false);
    let resources = Resources::builder()
        .template(
            ResourceSpec::template(
                tool_mcp::resources::UriTemplate::parse("wait://{n}").unwrap(),
                "wait",
            ),
            move |request| {
                let mut opened = opened.clone();
                async move {
                    let _ = opened.wait_for(|open| *open).await;
                    Ok(vec![Contents::text(request.uri, "text/plain", "done")])
                }
            },
        )
        .build()
        .unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap())
        .with_resources(resources)
        .with_max_concurrent_calls(1);
    let (mut client, _) = Client::start(server, Era::Session).await;
    let first = client
        .send_request("resources/read", json!({"uri": "wait://1"}))
        .await;
    let second = client
        .request("resources/read", json!({"uri": "wait://2"}))
        .await;
    assert_error(&second, -32603, json!({"maxConcurrentCalls": 1}));
    gate.send(true).unwrap();
    let (first, _) = client.response(first).await;
    assert_eq!(first["result"]["contents"][0]["text"], "done");
}

#[tokio::test]
async fn a_cancelled_read_is_stopped_and_gets_no_answer() {
    static STARTED: tokio::sync::Notify = tokio::sync::Notify::const_new();
    static STOPPED: tokio::sync::Notify = tokio::sync::Notify::const_new();
    struct Stopped;
    impl Drop for Stopped {
        fn drop(&mut self) {
            STOPPED.notify_one();
        }
    }
    let resources = Resources::builder()
        .template(
            ResourceSpec::template(
                tool_mcp::resources::UriTemplate::parse("wait://{n}").unwrap(),
                "wait",
            ),
            |_| {
                // Made with the read's future, so dropping the future unpolled
                // tells too.
                let stopped = Stopped;
                STARTED.notify_one();
                async move {
                    let _stopped = stopped;
                    std::future::pending().await
                }
            },
        )
        .build()
        .unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap())
        .with_resources(resources)
        .with_max_concurrent_calls(1);
    let (mut client, _) = Client::start(server, Era::Session).await;
    let first = client
        .send_request("resources/read", json!({"uri": "wait://1"}))
        .await;
    // Hang guards, not timing checks.
    tokio::time::timeout(std::time::Duration::from_secs(30), STARTED.notified())
        .await
        .expect("the read starts");
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": first}}),
        )
        .await;
    tokio::time::timeout(std::time::Duration::from_secs(30), STOPPED.notified())
        .await
        .expect("the read is stopped");
    // Its place is given back (at once, or as soon as its task ends): a
    // second read is admitted, and the cancelled one never answered.
    let mut admitted = false;
    for _ in 0..1000 {
        let second = client
            .send_request("resources/read", json!({"uri": "wait://2"}))
            .await;
        let (ping, before) = {
            let id = client.send_request("ping", json!({})).await;
            client.response(id).await
        };
        assert!(ping["result"].is_object());
        assert!(before.iter().all(|m| m["id"] != first), "{before:?}");
        if before.iter().all(|m| m["id"] != second) {
            admitted = true;
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(admitted);
}

#[tokio::test]
async fn subscriptions_are_answered_in_a_session_and_bounded() {
    let server = server().with_max_subscriptions(2);
    let (mut client, _) = Client::start(server, Era::Session).await;
    for uri in ["test://a", "test://b", "test://a"] {
        let answer = client
            .request("resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let third = client
        .request("resources/subscribe", json!({"uri": "test://c"}))
        .await;
    assert_error(&third, -32603, json!({"maxSubscriptions": 2}));
    let answer = client
        .request("resources/unsubscribe", json!({"uri": "test://a"}))
        .await;
    assert_eq!(answer["result"], json!({}));
    let answer = client
        .request("resources/subscribe", json!({"uri": "test://c"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    let answer = client.request("resources/subscribe", json!({})).await;
    assert_eq!(answer["error"]["code"], -32602);
}

#[tokio::test]
async fn the_stateless_revision_has_no_resources_subscribe() {
    let (mut client, _) = Client::start(server(), Era::Stateless).await;
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let answer = client.request(method, json!({"uri": "test://a"})).await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
}

#[tokio::test]
async fn subscribers_hear_of_updates_and_every_session_of_list_changes() {
    let resources = super::resources();
    let server =
        McpServer::new(Registry::builder().build().unwrap()).with_resources(resources.clone());
    let (mut client, _) = Client::start(server, Era::Session).await;
    let answer = client
        .request("resources/subscribe", json!({"uri": "test://static-text"}))
        .await;
    assert_eq!(answer["result"], json!({}));
    // Not subscribed: not told.
    resources.updated("test://static-binary");
    resources.updated("test://static-text");
    let update = client.next().await;
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(update["params"], json!({"uri": "test://static-text"}));
    resources
        .insert(Note(ResourceSpec::fixed("test://new", "new")))
        .unwrap();
    let changed = client.next().await;
    assert_eq!(changed["method"], "notifications/resources/list_changed");
    let list = client.request("resources/list", json!({})).await;
    assert_eq!(list["result"]["resources"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_listen_hears_of_updates_to_the_uris_it_names() {
    let resources = super::resources();
    let server = McpServer::new(Registry::builder().build().unwrap())
        .with_resources(resources.clone())
        .with_max_subscriptions(2);
    let (mut client, _) = Client::start(server, Era::Stateless).await;
    let too_many = client
        .request(
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["test://a", "test://b", "test://c"]}}),
        )
        .await;
    assert_error(&too_many, -32602, json!({"maxSubscriptions": 2}));
    let not_uris = client
        .request(
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": "test://a"}}),
        )
        .await;
    assert_eq!(not_uris["error"]["code"], -32602, "{not_uris}");
    let listen = client
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["test://static-text"]}}),
        )
        .await;
    let ack = client.next().await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourceSubscriptions": ["test://static-text"]})
    );
    // Not named: not told.
    resources.updated("test://static-binary");
    resources.updated("test://static-text");
    let update = client.next().await;
    assert_eq!(
        update["method"], "notifications/resources/updated",
        "{update}"
    );
    assert_eq!(update["params"]["uri"], "test://static-text");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
}

#[tokio::test]
async fn a_listen_without_resources_served_honours_no_subscriptions() {
    let server = McpServer::new(Registry::builder().build().unwrap());
    let (mut client, _) = Client::start(server, Era::Stateless).await;
    client
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true,
                "resourceSubscriptions": ["test://a"], "resourcesListChanged": true}}),
        )
        .await;
    let ack = client.next().await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
}

#[tokio::test]
async fn annotations_are_listed_for_resources_and_templates() {
    use std::time::{Duration, UNIX_EPOCH};
    use tool_mcp::resources::{ResourceAnnotations, UriTemplate};
    use tool_runtime::context::Role;

    let annotations = ResourceAnnotations::new()
        .with_audience([Role::User, Role::Assistant])
        .with_priority(0.75)
        .unwrap()
        .with_last_modified(UNIX_EPOCH + Duration::from_secs(1_736_694_058));
    let template = UriTemplate::parse("test://notes/{id}").unwrap();
    let resources = Resources::builder()
        .resource(Note(
            ResourceSpec::fixed("test://notes", "notes")
                .with_size(5)
                .with_annotations(annotations),
        ))
        .resource(Note(
            ResourceSpec::template(template, "note")
                .with_annotations(ResourceAnnotations::new().with_audience([Role::Assistant])),
        ))
        .build()
        .unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap()).with_resources(resources);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [{
                "uri": "test://notes", "name": "notes", "size": 5,
                "annotations": {
                    "audience": ["user", "assistant"],
                    "priority": 0.75,
                    "lastModified": "2025-01-12T15:00:58Z",
                },
            }]}),
            "{era:?}"
        );
        let templates = client.request("resources/templates/list", json!({})).await;
        assert_eq!(
            plain(era, &templates, true),
            json!({"resourceTemplates": [{
                "uriTemplate": "test://notes/{id}", "name": "note",
                "annotations": {"audience": ["assistant"]},
            }]}),
            "{era:?}"
        );
    }
    let out_of_range = ResourceAnnotations::new().with_priority(-0.1).unwrap_err();
    assert_eq!(out_of_range.0, -0.1);
    assert!(ResourceAnnotations::new().with_priority(f64::NAN).is_err());
}

#[tokio::test]
async fn templates_list_their_members_after_the_fixed_resources_bounded() {
    use tool_mcp::resources::UriTemplate;

    let read = |request: ReadRequest| async move {
        Ok(vec![Contents::text(request.uri, "text/plain", "x")])
    };
    let resources = Resources::builder()
        .resource(Note(ResourceSpec::fixed("test://z-fixed", "fixed")))
        .template_with_list(
            ResourceSpec::template(UriTemplate::parse("test://notes/{id}").unwrap(), "note"),
            read,
            |_ctx| async {
                Ok(vec![
                    ResourceSpec::fixed("test://notes/b", "b").with_mime_type("text/plain"),
                    // Listed already, as a fixed resource.
                    ResourceSpec::fixed("test://z-fixed", "again"),
                    // Not one URI.
                    ResourceSpec::template(UriTemplate::parse("test://notes/{x}").unwrap(), "t"),
                    ResourceSpec::fixed("test://notes/a", "a").with_size(3),
                    // Over the limit of two.
                    ResourceSpec::fixed("test://notes/c", "c"),
                ])
            },
        )
        .template_with_list(
            ResourceSpec::template(UriTemplate::parse("test://broken/{id}").unwrap(), "broken"),
            read,
            |_ctx| async { Err(ResourceError::Failed("the store is down".into())) },
        )
        .template_with_list(
            ResourceSpec::template(UriTemplate::parse("test://logs/{day}").unwrap(), "log"),
            read,
            |_ctx| async { Ok(vec![ResourceSpec::fixed("test://logs/monday", "monday")]) },
        )
        .max_listed(2)
        .build()
        .unwrap();
    assert_eq!(resources.max_listed(), 2);
    let server = McpServer::new(Registry::builder().build().unwrap()).with_resources(resources);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [
                {"uri": "test://z-fixed", "name": "fixed"},
                {"uri": "test://notes/b", "name": "b", "mimeType": "text/plain"},
                {"uri": "test://notes/a", "name": "a", "size": 3},
                {"uri": "test://logs/monday", "name": "monday"},
            ]}),
            "{era:?}"
        );
        let refused = client
            .request("resources/list", json!({"cursor": "abc"}))
            .await;
        assert_eq!(refused["error"]["code"], -32602, "{era:?}: {refused}");
    }
    assert_eq!(Resources::DEFAULT_MAX_LISTED, 1000);
}

#[cfg(feature = "sections")]
#[tokio::test]
async fn a_registry_file_folder_lists_its_plain_files() {
    use tool_manifest::Manifest;
    use tool_mcp::sections::{self, ResourcesSection};

    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(notes.join("inner")).unwrap();
    std::fs::write(notes.join("b.txt"), "bee").unwrap();
    std::fs::write(notes.join("a.md"), "# A").unwrap();
    std::fs::write(notes.join("inner").join("deep.md"), "deep").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(notes.join("a.md"), notes.join("link.md")).unwrap();
    let path = dir.path().join("tools.yaml");
    std::fs::write(
        &path,
        "resources:\n  - uri: notes://{name}\n    dir: notes\n  - uri: docs://hello\n    text: Hi\n",
    )
    .unwrap();
    let manifest = Manifest::from_path_with(&path, &[&ResourcesSection]).unwrap();
    assert_eq!(manifest.problems(), &[]);
    let loaded = sections::load(&manifest).unwrap();
    let resources = loaded.resources(Resources::builder()).build().unwrap();
    let server = McpServer::new(Registry::builder().build().unwrap()).with_resources(resources);
    for era in ERAS {
        let (mut client, _) = Client::start(server.clone(), era).await;
        let list = client.request("resources/list", json!({})).await;
        assert_eq!(
            plain(era, &list, true),
            json!({"resources": [
                {"uri": "docs://hello", "name": "docs://hello", "size": 2},
                {"uri": "notes://a.md", "name": "a.md", "mimeType": "text/markdown", "size": 3},
                {"uri": "notes://b.txt", "name": "b.txt", "mimeType": "text/plain", "size": 3},
            ]}),
            "{era:?}"
        );
        // Each listed member reads.
        let read = client
            .request("resources/read", json!({"uri": "notes://b.txt"}))
            .await;
        assert_eq!(read["result"]["contents"][0]["text"], "bee", "{read}");
    }
}
