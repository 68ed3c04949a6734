//! Methods as tools: `#[toolset]` impl blocks bound to a shared instance.

use std::sync::Arc;
use std::sync::Mutex;

use serde_json::json;
use tool_runtime::{Registry, Tool, ToolContext, ToolError, ToolUse, registry::Linked, toolset};

/// A tiny key-value store whose methods are tools.
#[derive(Default)]
struct Store {
    entries: Mutex<Vec<(String, String)>>,
}

#[toolset]
impl Store {
    /// Stores a value under a key, replacing any earlier value.
    #[tool]
    fn put(
        &self,
        /// The key
        key: String,
        /// The value
        value: String,
    ) -> String {
        let mut entries = self.entries.lock().unwrap();
        entries.retain(|(k, _)| *k != key);
        entries.push((key.clone(), value));
        format!("stored {key}")
    }

    /// Reads the value stored under a key.
    #[tool(name = "get_value")]
    async fn get(&self, key: String) -> Result<String, ToolError> {
        tokio::task::yield_now().await;
        let entries = self.entries.lock().unwrap();
        entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| ToolError::new(format!("no value is stored under {key:?}")))
    }

    /// Says which store this is.
    #[tool]
    fn kind() -> &'static str {
        "in-memory"
    }

    /// Not a tool: no `#[tool]`.
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }
}

#[tokio::test]
async fn methods_share_one_instance() {
    let store = Arc::new(Store::default());
    let registry = Registry::builder()
        .toolset(Arc::clone(&store))
        .build()
        .unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["get_value", "kind", "put"]
    );
    let ctx = ToolContext::new();
    let put = registry
        .invoke(
            ToolUse::new("1", "put", json!({"key": "a", "value": "1"})),
            &ctx,
        )
        .await;
    assert_eq!(put.text_content(), "stored a");
    let got = registry
        .invoke(ToolUse::new("2", "get_value", json!({"key": "a"})), &ctx)
        .await;
    assert_eq!(got.text_content(), "1");
    let missing = registry
        .invoke(ToolUse::new("3", "get_value", json!({"key": "b"})), &ctx)
        .await;
    assert!(missing.is_error());
    assert_eq!(
        store.len(),
        1,
        "the registry's tools used the caller's instance"
    );
}

#[test]
fn specs_come_from_the_methods() {
    let spec = StorePutTool::SPEC;
    assert_eq!(spec.name, "put");
    assert_eq!(
        spec.description,
        "Stores a value under a key, replacing any earlier value."
    );
    assert_eq!(spec.params.len(), 2, "`&self` is not a parameter");
    assert_eq!(spec.params[0].description, "The key");
    assert_eq!(StoreGetTool::SPEC.name, "get_value");
    assert_eq!(StoreKindTool::SPEC.params.len(), 0);
}

#[test]
fn toolset_tools_are_not_global() {
    // They need an instance, so they are only in registries given one.
    assert!(
        !Registry::builder()
            .linked(Linked::all())
            .build()
            .unwrap()
            .contains("put")
    );
}

#[tokio::test]
async fn a_bound_tool_can_be_used_alone_and_methods_stay_methods() {
    let store = Arc::new(Store::default());
    let tool = StorePutTool::new(Arc::clone(&store));
    let value = tool
        .call_json(&json!({"key": "k", "value": "v"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, json!("stored k"));
    assert_eq!(store.put("x".into(), "y".into()), "stored x");
    assert_eq!(Store::kind(), "in-memory");
}
