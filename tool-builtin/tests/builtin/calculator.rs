use serde_json::json;

use crate::{call, refused, registry};

#[tokio::test]
async fn evaluates_expressions() {
    let registry = registry("calculator", json!({}));
    let value = call(
        &registry,
        "calculator",
        json!({"expression": "2 * (3 + 4) ^ 2 / sqrt(16)"}),
    )
    .await
    .unwrap();
    assert_eq!(value["result"], 24.5);
    assert_eq!(value["expression"], "2 * (3 + 4) ^ 2 / sqrt(16)");
    let value = call(
        &registry,
        "calculator",
        json!({"expression": "max(1, pi, e) * 2"}),
    )
    .await
    .unwrap();
    assert_eq!(value["result"], std::f64::consts::PI * 2.0);
}

#[tokio::test]
async fn errors_are_error_results() {
    let registry = registry("calculator", json!({}));
    let text = refused(&registry, "calculator", json!({"expression": "1 / 0"})).await;
    assert!(text.contains("division by zero"), "{text}");
    let text = refused(&registry, "calculator", json!({"expression": "10 ^ 309"})).await;
    assert!(text.contains("overflows"), "{text}");
    let text = refused(&registry, "calculator", json!({"expression": "(2 + 3"})).await;
    assert!(text.contains("(at character 1)"), "{text}");
    let text = refused(&registry, "calculator", json!({"expression": "x = 4"})).await;
    assert!(text.contains("no variables"), "{text}");
}

#[tokio::test]
async fn the_length_limit_is_configurable() {
    let registry = registry("calculator", json!({"max_length": 5}));
    let text = refused(&registry, "calculator", json!({"expression": "1 + 2 + 3"})).await;
    assert!(text.contains("the limit is 5"), "{text}");
    assert!(
        call(&registry, "calculator", json!({"expression": "1 + 2"}))
            .await
            .is_ok()
    );
}
