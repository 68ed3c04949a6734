use serde::Deserialize;
use tool_runtime::tool;

/// A parameter type whose `JsonSchema` is schemars 0.9's, as a crate that
/// asks for `schemars = "0.9"` (or "0.8") derives it: another trait than
/// the schemars 1 `JsonSchema` a tool parameter needs.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Order {
    Asc,
    Desc,
}

impl schemars09::JsonSchema for Order {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Order".into()
    }

    fn json_schema(_: &mut schemars09::SchemaGenerator) -> schemars09::Schema {
        schemars09::json_schema!({"enum": ["asc", "desc"]})
    }
}

/// Lists orders.
#[tool]
fn list_orders(order: Order) -> String {
    match order {
        Order::Asc => "oldest first".into(),
        Order::Desc => "newest first".into(),
    }
}

fn main() {}
