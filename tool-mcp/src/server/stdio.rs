//! The server's `stdio` transport: newline-delimited JSON-RPC over a byte
//! stream pair ([`McpServer::serve_io`]), or this process's stdin and
//! stdout ([`McpServer::serve_stdio`]). Each line read goes to the
//! session ([`Session::handle_line`](super::session::Session)), which
//! answers every request, even one it cannot read.
//!
//! A line longer than [`MAX_LINE`] gets a JSON-RPC `-32700` (parse error)
//! and is skipped, without being held in memory.
//!
//! The messages waiting to be written are bounded in bytes
//! ([`McpServer::with_output_buffer`]): when the client does not read its
//! input (the server's output), the queue fills, and the server stops
//! reading until there is room, so its memory stays bounded.
//!
//! Each message goes out in one write; the output is flushed when no more
//! messages wait, so under load several messages share a write and a
//! flush. When stdin and stdout are pipes (as an MCP client starts a
//! server), they are driven by Tokio's reactor rather than its blocking
//! thread pool.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::McpServer;
use super::output::{Queue, Queued};
use super::session::Session;
use super::wire::{Id, PARSE_ERROR, error_line, scan_id};

/// The longest line (one message) read, newline included: 16 MiB. A
/// longer line is answered with a parse error and skipped.
pub(super) const MAX_LINE: usize = 16 * 1024 * 1024;

/// How many bytes of queued messages one write takes at most.
const BATCH: usize = 256 * 1024;

/// Serves `server` on this process's stdin and stdout: [`McpServer::serve_stdio`].
pub(super) async fn serve_stdio(server: McpServer) -> io::Result<()> {
    match pipes() {
        Some((reader, writer)) => serve(server, reader, writer).await,
        None => serve(server, tokio::io::stdin(), tokio::io::stdout()).await,
    }
}

/// Stdin and stdout, opened again without blocking and driven by the
/// reactor, when both are pipes; `None` otherwise (a terminal, a file).
///
/// They are opened again (through `/proc/self/fd`) rather than switched to
/// non-blocking in place, so that the process's own descriptors, which
/// children inherit, stay as they were.
#[cfg(target_os = "linux")]
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let open = |fd: i32, write: bool| -> Option<std::fs::File> {
        let file = std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NONBLOCK)
            .open(format!("/proc/self/fd/{fd}"))
            .ok()?;
        file.metadata().ok()?.file_type().is_fifo().then_some(file)
    };
    let input = open(0, false)?;
    let output = open(1, true)?;
    let reader = tokio::net::unix::pipe::Receiver::from_file_unchecked(input).ok()?;
    let writer = tokio::net::unix::pipe::Sender::from_file_unchecked(output).ok()?;
    Some((reader, writer))
}

#[cfg(not(target_os = "linux"))]
fn pipes() -> Option<(tokio::io::Stdin, tokio::io::Stdout)> {
    None
}

/// Serves `server` on a byte stream pair until the reader ends:
/// [`McpServer::serve_io`].
pub(super) async fn serve<R, W>(server: McpServer, reader: R, writer: W) -> io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (queue, output, queued) = Queue::new(server.limits.output_buffer);
    let writing = tokio::spawn(write_out(writer, queued));
    let session = Session::new(server, queue, true);
    let mut lines = Lines {
        reader: BufReader::with_capacity(64 * 1024, reader),
        line: Vec::new(),
        discarding: false,
    };
    let ended = loop {
        match lines.read_line().await {
            Ok(Read::Line) => session.handle_line(trim(&lines.line)).await,
            Ok(Read::TooLong(id)) => {
                let message = format!("parse error: the message is longer than {MAX_LINE} bytes");
                let line = error_line(&id, PARSE_ERROR, &message, None);
                session.output.push(line).await;
            }
            // A last line without its newline is incomplete: dropped.
            Ok(Read::End) => break Ok(()),
            Err(error) => break Err(error),
        }
        lines.line.clear();
    };
    session.close().await;
    // The writer ends once the queue is drained and closed: every message
    // sent so far is written and flushed.
    drop(output);
    writing.await.map_err(io::Error::other)?;
    ended
}

/// The lines of a reader, one at a time.
struct Lines<R> {
    reader: BufReader<R>,
    /// The line read so far.
    line: Vec<u8>,
    /// Skipping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
}

/// How a bounded line read ended.
enum Read {
    Line,
    /// The line was too long; the id its head gives, if any.
    TooLong(Id),
    End,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Reads one line into `self.line`, never holding more than
    /// [`MAX_LINE`] bytes of it.
    async fn read_line(&mut self) -> io::Result<Read> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::End);
            }
            let newline = available.iter().position(|&byte| byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            if self.discarding {
                self.discarding = newline.is_none();
                self.reader.consume(take);
                continue;
            }
            if self.line.len() + take > MAX_LINE {
                // The head of the line, for its id.
                let head = &self.line[..];
                let id = scan_id(if head.is_empty() { available } else { head });
                self.line.clear();
                self.discarding = newline.is_none();
                self.reader.consume(take);
                return Ok(Read::TooLong(id));
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(Read::Line);
            }
        }
    }
}

/// Writes the queued messages, as many as are waiting (up to [`BATCH`]
/// bytes) in each write, and flushes whenever the queue is empty.
async fn write_out<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queued: mpsc::UnboundedReceiver<Queued>,
) {
    let mut batch = Vec::new();
    while let Some(first) = queued.recv().await {
        // Each message gives its room in the queue back once written.
        let mut written = if queued.is_empty() {
            writer.write_all(&first.line).await
        } else {
            batch.clear();
            batch.extend_from_slice(&first.line);
            drop(first);
            while batch.len() < BATCH {
                match queued.try_recv() {
                    Ok(next) => batch.extend_from_slice(&next.line),
                    Err(_) => break,
                }
            }
            writer.write_all(&batch).await
        };
        if written.is_ok() && queued.is_empty() {
            written = writer.flush().await;
        }
        if let Err(error) = written {
            // Sends are dropped from now on, as the queue is closed.
            tracing::debug!(%error, "writing a message failed; the output is closed");
            return;
        }
    }
}

/// The line without its newline, carriage return and byte order mark.
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}
