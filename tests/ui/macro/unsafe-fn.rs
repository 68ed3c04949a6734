use tool_runtime::tool;

/// Reads a byte.
#[tool]
unsafe fn first_byte(text: String) -> u8 {
    unsafe { *text.as_ptr() }
}

fn main() {}
