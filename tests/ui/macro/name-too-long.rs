use tool_runtime::tool;

/// Gets the weather.
#[tool(name = "get_the_weather_forecast_for_a_city_for_the_next_few_days_in_celsius")]
fn weather() -> String {
    "sunny".to_owned()
}

fn main() {}
