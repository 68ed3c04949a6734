//! How tasks are run and kept: [`TaskOptions`].

use std::time::Duration;

/// How tasks are run and kept.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskOptions {
    /// How long after it starts a task may be forgotten; `None` keeps it as
    /// long as the store does. One hour by default.
    pub ttl: Option<Duration>,
    /// How often a reader should ask for news of a task. One second by
    /// default.
    pub poll_interval: Duration,
    /// How often a running task's process says it is alive; after three
    /// missed heartbeats the task reads as failed. Five seconds by default.
    pub heartbeat: Duration,
    /// How many tasks may run in this process at once through one
    /// [`Tasks`](crate::Tasks); a start beyond it fails with [`TaskError::TooMany`](crate::TaskError::TooMany).
    /// 64 by default.
    pub max_running: usize,
    /// The largest result a task keeps, in bytes of its JSON: a call whose
    /// result is larger ends [`Failed`](crate::TaskStatus::Failed), saying so, and
    /// keeps no result. 4 MiB by default.
    pub max_result_bytes: usize,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(60 * 60)),
            poll_interval: Duration::from_secs(1),
            heartbeat: Duration::from_secs(5),
            max_running: 64,
            max_result_bytes: 4 * 1024 * 1024,
        }
    }
}

impl TaskOptions {
    /// Sets [`ttl`](Self::ttl).
    pub fn with_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets [`poll_interval`](Self::poll_interval) (at least 1 ms).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Sets [`heartbeat`](Self::heartbeat) (at least 1 ms).
    pub fn with_heartbeat(mut self, heartbeat: Duration) -> Self {
        self.heartbeat = heartbeat.max(Duration::from_millis(1));
        self
    }

    /// Sets [`max_result_bytes`](Self::max_result_bytes) (at least 1).
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes.max(1);
        self
    }

    /// Sets [`max_running`](Self::max_running) (at least 1).
    pub fn with_max_running(mut self, max_running: usize) -> Self {
        self.max_running = max_running.max(1);
        self
    }
}
