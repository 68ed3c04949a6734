use serde::Deserialize;
use tool_runtime::tool;

#[derive(Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

/// Measures the distance from the origin.
#[tool]
fn distance(point: Point) -> i32 {
    point.x.abs() + point.y.abs()
}

fn main() {}
