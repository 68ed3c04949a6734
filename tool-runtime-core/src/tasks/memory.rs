//! The in-process task store.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::store::{StoreFuture, TaskStore, TaskStoreError};
use super::task::Task;
use crate::events::record::unix_millis;

/// Tasks kept in this process's memory: shared by every holder of the
/// store in the process, gone when it ends.
///
/// Holds at most [`DEFAULT_MAX_TASKS`](Self::DEFAULT_MAX_TASKS) tasks
/// (see [`with_max_tasks`](Self::with_max_tasks)); tasks past their time to
/// live are dropped as new ones come, and a full store refuses new tasks
/// with [`TaskStoreError::Full`].
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, Entry>>,
    max_tasks: usize,
}

#[derive(Debug)]
struct Entry {
    task: Task,
    cancel: CancellationToken,
    /// The requests waiting for an answer, by key.
    requests: BTreeMap<String, Value>,
    /// The answers not yet taken by the call, by key.
    answers: HashMap<String, Value>,
    /// Told when an answer comes.
    answered: Arc<Notify>,
}

impl Entry {
    fn new(task: Task) -> Self {
        Entry {
            task,
            cancel: CancellationToken::new(),
            requests: BTreeMap::new(),
            answers: HashMap::new(),
            answered: Arc::new(Notify::new()),
        }
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTaskStore {
    /// The most tasks a store holds by default: 10,000.
    pub const DEFAULT_MAX_TASKS: usize = 10_000;

    /// An empty store with the default limit.
    pub fn new() -> Self {
        Self {
            tasks: Mutex::new(HashMap::new()),
            max_tasks: Self::DEFAULT_MAX_TASKS,
        }
    }

    /// The most tasks the store holds at once (at least 1).
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self
    }

    /// How many tasks the store holds now, expired ones included until the
    /// next task is made.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the store holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: Task) -> StoreFuture<'_, ()> {
        let mut tasks = self.lock();
        let now = unix_millis();
        if tasks.len() >= self.max_tasks {
            tasks.retain(|_, entry| !entry.task.is_expired(now));
        }
        let outcome = if tasks.len() >= self.max_tasks {
            Err(TaskStoreError::Full {
                limit: self.max_tasks,
            })
        } else {
            tasks.insert(task.id.clone(), Entry::new(task));
            Ok(())
        };
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Task>> {
        let now = unix_millis();
        let task = self
            .lock()
            .get(id)
            .filter(|entry| !entry.task.is_expired(now))
            .map(|entry| {
                entry
                    .task
                    .clone()
                    .with_input_requests(entry.requests.clone())
            });
        Box::pin(std::future::ready(Ok(task)))
    }

    fn update(&self, task: Task) -> StoreFuture<'_, ()> {
        if let Some(entry) = self.lock().get_mut(&task.id) {
            if task.is_terminal() {
                entry.requests.clear();
                entry.answers.clear();
            }
            entry.task = task;
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let now = unix_millis();
        let running = match self.lock().get(id) {
            Some(entry) if !entry.task.is_expired(now) => {
                entry.cancel.cancel();
                !entry.task.is_terminal()
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(running)))
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        let token = self.lock().get(id).map(|entry| entry.cancel.clone());
        Box::pin(async move {
            match token {
                Some(token) => token.cancelled_owned().await,
                // A task the store does not hold is never cancelled here.
                None => std::future::pending().await,
            }
            Ok(())
        })
    }

    fn request_input<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        request: Value,
    ) -> StoreFuture<'a, ()> {
        if let Some(entry) = self.lock().get_mut(id)
            && !entry.task.is_terminal()
        {
            entry.requests.insert(key.to_owned(), request);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn respond<'a>(&'a self, id: &'a str, responses: Map<String, Value>) -> StoreFuture<'a, bool> {
        let now = unix_millis();
        let known = match self.lock().get_mut(id) {
            Some(entry) if !entry.task.is_expired(now) => {
                for (key, answer) in responses {
                    if entry.requests.remove(&key).is_some() {
                        entry.answers.insert(key, answer);
                    }
                }
                entry.answered.notify_waiters();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(known)))
    }

    fn answer<'a>(&'a self, id: &'a str, key: &'a str) -> StoreFuture<'a, Value> {
        Box::pin(async move {
            loop {
                let Some(answered) = self.lock().get(id).map(|entry| Arc::clone(&entry.answered))
                else {
                    // A task the store does not hold is never answered here.
                    return std::future::pending().await;
                };
                let notified = answered.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(answer) = self
                    .lock()
                    .get_mut(id)
                    .and_then(|entry| entry.answers.remove(key))
                {
                    return Ok(answer);
                }
                notified.await;
            }
        })
    }
}
