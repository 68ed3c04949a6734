//! A `redis-server` for a test, shared by the test files that need one
//! (included with `#[path]`).

use std::time::Duration;

/// A `redis-server` of this test's own on a free loopback port, with no
/// persistence, killed by its process id when dropped; from
/// `tests/mcp/redis.sh`, which fetches Debian's package when the machine
/// has none.
pub struct Redis {
    child: std::process::Child,
    /// Where it listens: `redis://127.0.0.1:PORT/`.
    pub url: String,
}

impl Redis {
    /// Starts one, once `tests/mcp/redis.sh` has found or fetched the server.
    pub fn start() -> Self {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let script = root.join("tests/mcp/redis.sh");
        let output = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .expect("tests/mcp/redis.sh runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let server = stdout
            .lines()
            .find_map(|line| line.strip_prefix("REDIS_SERVER="))
            .unwrap_or_else(|| {
                panic!(
                    "tests/mcp/redis.sh found no redis-server: {}",
                    String::from_utf8_lossy(&output.stderr)
                )
            })
            .to_owned();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(&server)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "redis-server does not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/"),
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
