use tool_runtime::tool;

#[derive(Debug)]
enum LookupError {
    NotFound,
}

/// Looks a city up.
#[tool]
fn lookup(city: String) -> Result<String, LookupError> {
    if city.is_empty() {
        Err(LookupError::NotFound)
    } else {
        Ok(city)
    }
}

fn main() {}
