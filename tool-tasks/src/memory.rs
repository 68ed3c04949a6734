//! The in-process task store.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio::sync::Notify;
use tool_runtime_core::context::CancellationToken;

use crate::store::{StoreFuture, TaskStore, TaskStoreError};
use crate::task::Task;
use crate::task::unix_millis;

/// Tasks kept in this process's memory: shared by every holder of the
/// store in the process, gone when it ends.
///
/// Holds at most [`DEFAULT_MAX_TASKS`](Self::DEFAULT_MAX_TASKS) tasks
/// (see [`with_max_tasks`](Self::with_max_tasks)), and at most
/// [`DEFAULT_MAX_TASKS_PER_OWNER`](Self::DEFAULT_MAX_TASKS_PER_OWNER) of
/// one [owner](Task::owner)'s (see
/// [`with_max_tasks_per_owner`](Self::with_max_tasks_per_owner)). A new
/// task of an owner at its share drops that owner's oldest task that is
/// [over](Task::is_over) (ended, past its time to live, or lost), never
/// another owner's, and is refused with [`TaskStoreError::OwnerFull`] when
/// all of them still run. A new task in a full store drops the oldest task
/// that is over, whoever's, and is refused with [`TaskStoreError::Full`]
/// when every task still runs.
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: Mutex<Inner>,
    max_tasks: usize,
    max_tasks_per_owner: usize,
}

/// The tasks, and the orders they were made in.
#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    /// Every task's id, by when it was made.
    order: BTreeMap<u64, String>,
    /// Each owner's tasks' ids, by when they were made.
    owners: HashMap<String, BTreeMap<u64, String>>,
    /// The number of the next task made.
    next: u64,
}

#[derive(Debug)]
struct Entry {
    task: Task,
    /// Its number in the order tasks were made in.
    number: u64,
    cancel: CancellationToken,
    /// The requests waiting for an answer, by key.
    requests: BTreeMap<String, Value>,
    /// The answers not yet taken by the call, by key.
    answers: HashMap<String, Value>,
    /// Told when an answer comes.
    answered: Arc<Notify>,
}

impl Entry {
    fn new(task: Task, number: u64) -> Self {
        Entry {
            task,
            number,
            cancel: CancellationToken::new(),
            requests: BTreeMap::new(),
            answers: HashMap::new(),
            answered: Arc::new(Notify::new()),
        }
    }
}

impl Inner {
    fn insert(&mut self, task: Task) {
        self.remove(&task.id);
        let number = self.next;
        self.next += 1;
        self.order.insert(number, task.id.clone());
        if let Some(owner) = &task.owner {
            let owned = self.owners.entry(owner.clone()).or_default();
            owned.insert(number, task.id.clone());
        }
        self.tasks.insert(task.id.clone(), Entry::new(task, number));
    }

    fn remove(&mut self, id: &str) {
        let Some(entry) = self.tasks.remove(id) else {
            return;
        };
        self.order.remove(&entry.number);
        if let Some(owner) = &entry.task.owner
            && let Some(owned) = self.owners.get_mut(owner)
        {
            owned.remove(&entry.number);
            if owned.is_empty() {
                self.owners.remove(owner);
            }
        }
    }

    /// How many tasks `owner` has in the store.
    fn owned(&self, owner: &str) -> usize {
        self.owners.get(owner).map_or(0, BTreeMap::len)
    }

    /// Drops the oldest task that is over at `now`: `owner`'s, or anyone's
    /// for `None`. `false` when there is none.
    fn drop_oldest_over(&mut self, owner: Option<&str>, now: u64) -> bool {
        let ids = match owner {
            Some(owner) => match self.owners.get(owner) {
                Some(owned) => owned,
                None => return false,
            },
            None => &self.order,
        };
        let over = ids
            .values()
            .find(|id| {
                self.tasks
                    .get(id.as_str())
                    .is_some_and(|entry| entry.task.is_over(now))
            })
            .cloned();
        match over {
            Some(id) => {
                self.remove(&id);
                true
            }
            None => false,
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

    /// The most tasks a store holds for one owner by default: 1,000, a
    /// tenth of the total.
    pub const DEFAULT_MAX_TASKS_PER_OWNER: usize = 1_000;

    /// An empty store with the default limits.
    pub fn new() -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            max_tasks: Self::DEFAULT_MAX_TASKS,
            max_tasks_per_owner: Self::DEFAULT_MAX_TASKS_PER_OWNER,
        }
    }

    /// The most tasks the store holds at once (at least 1).
    pub fn with_max_tasks(mut self, max_tasks: usize) -> Self {
        self.max_tasks = max_tasks.max(1);
        self
    }

    /// The most tasks the store holds for one [owner](Task::owner) at
    /// once (at least 1); tasks without an owner count against the total
    /// only. A share at or above the total bounds nothing of its own.
    pub fn with_max_tasks_per_owner(mut self, max_tasks: usize) -> Self {
        self.max_tasks_per_owner = max_tasks.max(1);
        self
    }

    /// How many tasks the store holds now, those past their time to live
    /// included until they are dropped to make room.
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Whether the store holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many tasks the store holds now for `owner`.
    pub fn owned_by(&self, owner: &str) -> usize {
        self.lock().owned(owner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room for a task of `owner`, or says why there is none.
    fn make_room(&self, inner: &mut Inner, owner: Option<&str>) -> Result<(), TaskStoreError> {
        let now = unix_millis();
        if let Some(owner) = owner {
            while inner.owned(owner) >= self.max_tasks_per_owner {
                if !inner.drop_oldest_over(Some(owner), now) {
                    return Err(TaskStoreError::OwnerFull {
                        limit: self.max_tasks_per_owner,
                    });
                }
            }
        }
        while inner.tasks.len() >= self.max_tasks {
            if !inner.drop_oldest_over(None, now) {
                return Err(TaskStoreError::Full {
                    limit: self.max_tasks,
                });
            }
        }
        Ok(())
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, task: Task) -> StoreFuture<'_, ()> {
        let mut inner = self.lock();
        let outcome = self
            .make_room(&mut inner, task.owner.as_deref())
            .map(|()| inner.insert(task));
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Task>> {
        let now = unix_millis();
        let task = self
            .lock()
            .tasks
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

    fn update(&self, mut task: Task) -> StoreFuture<'_, ()> {
        if let Some(entry) = self.lock().tasks.get_mut(&task.id) {
            // Counted against the owner it was made with, whatever comes.
            task.owner.clone_from(&entry.task.owner);
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
        let running = match self.lock().tasks.get(id) {
            Some(entry) if !entry.task.is_expired(now) => {
                entry.cancel.cancel();
                !entry.task.is_terminal()
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(running)))
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        let token = self.lock().tasks.get(id).map(|entry| entry.cancel.clone());
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
        if let Some(entry) = self.lock().tasks.get_mut(id)
            && !entry.task.is_terminal()
        {
            entry.requests.insert(key.to_owned(), request);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn respond<'a>(&'a self, id: &'a str, responses: Map<String, Value>) -> StoreFuture<'a, bool> {
        let now = unix_millis();
        let known = match self.lock().tasks.get_mut(id) {
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
                let Some(answered) = self
                    .lock()
                    .tasks
                    .get(id)
                    .map(|entry| Arc::clone(&entry.answered))
                else {
                    // A task the store does not hold is never answered here.
                    return std::future::pending().await;
                };
                let notified = answered.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(answer) = self
                    .lock()
                    .tasks
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
