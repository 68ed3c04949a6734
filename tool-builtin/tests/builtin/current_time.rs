use serde_json::json;
use tool_runtime::{Registry, registry::Linked};

use crate::{call, refused, registry};

#[tokio::test]
async fn answers_in_the_requested_zone_and_format() {
    let registry = registry("current_time", json!({}));
    let value = call(&registry, "current_time", json!({"zone": "Asia/Kolkata"}))
        .await
        .unwrap();
    assert_eq!(value["zone"], "Asia/Kolkata");
    assert_eq!(value["utc_offset"], "+05:30");
    let time = value["time"].as_str().unwrap();
    assert!(time.ends_with("+05:30"), "{time}");
    // The RFC 3339 text and the unix seconds are the same instant.
    let parsed: jiff::Timestamp = time.parse().unwrap();
    assert_eq!(parsed.as_second(), value["unix"].as_i64().unwrap());

    let value = call(
        &registry,
        "current_time",
        json!({"zone": "UTC", "format": "unix"}),
    )
    .await
    .unwrap();
    assert_eq!(value["time"], value["unix"].to_string());
}

#[tokio::test]
async fn the_default_zone_comes_from_the_configuration() {
    let registry = registry(
        "current_time",
        json!({"default_zone": "America/Sao_Paulo", "default_format": "%z"}),
    );
    let value = call(&registry, "current_time", json!({})).await.unwrap();
    assert_eq!(value["zone"], "America/Sao_Paulo");
    assert_eq!(value["time"], "-0300");
    let registry = crate::registry("current_time", json!({}));
    let value = call(&registry, "current_time", json!({})).await.unwrap();
    assert_eq!(value["zone"], "UTC");
    assert!(value["time"].as_str().unwrap().ends_with("+00:00"));
}

#[tokio::test]
async fn an_unknown_zone_is_refused_with_suggestions() {
    let registry = registry("current_time", json!({}));
    let text = refused(&registry, "current_time", json!({"zone": "Europe/Pariss"})).await;
    assert!(
        text.contains("unknown time zone \"Europe/Pariss\""),
        "{text}"
    );
    assert!(
        text.contains("closest known zones are Europe/Paris"),
        "{text}"
    );
}

#[test]
fn a_bad_default_zone_fails_the_registry_build() {
    let error = Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(["current_time"]))
        .configure("current_time", json!({"default_zone": "Mars/Olympus"}))
        .config_from_env(false)
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("default_zone"), "{error}");
    assert!(
        error.contains("unknown time zone \"Mars/Olympus\""),
        "{error}"
    );
}
