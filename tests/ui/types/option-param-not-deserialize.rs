use schemars::JsonSchema;
use tool_runtime::tool;

#[derive(JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// Measures the distance from the origin.
#[tool]
fn distance(point: Option<Point>) -> i32 {
    point.map_or(0, |p| p.x.abs() + p.y.abs())
}

fn main() {}
