//! Tasks kept in Redis (feature `redis`): shared by every process that
//! reaches the same Redis, and outliving the process that ran them.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tool_runtime_core::context::CancellationToken;

use crate::store::{StoreFuture, TaskStore, TaskStoreError};
use crate::task::Task;
use crate::task::unix_millis;

/// How long a cancellation request is kept for a task with no time to live.
const CANCEL_KEPT: Duration = Duration::from_secs(24 * 60 * 60);
/// How often a process waiting for a cancellation also looks for it in
/// Redis, in case a published one was missed (a reconnection, say).
const CANCEL_RECHECK: Duration = Duration::from_secs(5);
/// How long connecting to Redis may take, each attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How many times a failed connection is tried again (with a short backoff).
const CONNECT_RETRIES: usize = 2;
/// How long one command may wait for Redis's answer.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);
/// The wait before the cancellation listener reconnects.
const RECONNECT: Duration = Duration::from_secs(1);
/// How many of an owner's oldest tasks are read at once when it needs room.
const ROOM_BATCH: isize = 32;
/// Counts a task in its owner's set (`KEYS[1]`): member `ARGV[2]` with
/// score `ARGV[1]` (when it may be forgotten), the set kept as long as its
/// longest-kept task (`ARGV[3]` ms from now, or for ever when negative).
const COUNT_IN: &str = r"
local existed = redis.call('EXISTS', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local keep = tonumber(ARGV[3])
if keep < 0 then
  redis.call('PERSIST', KEYS[1])
elseif existed == 0 then
  redis.call('PEXPIRE', KEYS[1], keep)
else
  local left = redis.call('PTTL', KEYS[1])
  if left >= 0 and left < keep then
    redis.call('PEXPIRE', KEYS[1], keep)
  end
end
return 1
";

/// Tasks kept in Redis, as JSON under `{prefix}task:{id}`, each with its
/// time to live as the key's expiry, so Redis forgets it when the task may
/// be forgotten.
///
/// A cancellation is a key of its own (`{prefix}cancel:{id}`) and a message
/// published on `{prefix}cancel`: the process running the call hears it
/// at once through one subscription per store, and looks for the key every
/// few seconds besides, so a message lost while it reconnects still
/// arrives. A process that ends while its tasks run leaves them working in
/// Redis, and they read as failed once their heartbeats stop
/// ([`Task::observed`]).
///
/// A call's requests to whoever started the task (an elicitation, say)
/// wait in a hash (`{prefix}input:{id}`) until [`TaskStore::respond`]
/// moves each answer to `{prefix}answer:{id}` and publishes the task's id
/// on `{prefix}answer`, which wakes the process running the call, whichever
/// process answered.
///
/// Each [owner](Task::owner)'s tasks are counted in a sorted set
/// (`{prefix}owner:{owner}`, by when each may be forgotten): a new task of
/// an owner that keeps
/// [`DEFAULT_MAX_TASKS_PER_OWNER`](Self::DEFAULT_MAX_TASKS_PER_OWNER)
/// (see [`with_max_tasks_per_owner`](Self::with_max_tasks_per_owner))
/// drops that owner's oldest tasks that are [over](Task::is_over), never
/// another owner's, and is refused with [`TaskStoreError::OwnerFull`] when
/// all of them still run. The share holds give or take the tasks the same
/// owner makes at the same moment through other processes.
///
/// Needs Redis 6.2 or later (`SET ... KEEPTTL`). Beyond the owners'
/// shares, the number of tasks is bounded by their time to live and by
/// [`TaskOptions::max_running`](crate::TaskOptions::max_running) in each
/// process (and tasks without an owner by those only), not by the store.
pub struct RedisTaskStore {
    client: redis::Client,
    connection: ConnectionManager,
    prefix: String,
    max_tasks_per_owner: usize,
    waiters: Arc<Waiters>,
    listening: Mutex<bool>,
}

/// This process's waits, by task id: for a cancellation, and for answers
/// to a task's input requests.
#[derive(Default)]
struct Waiters {
    cancels: Mutex<HashMap<String, CancellationToken>>,
    answers: Mutex<HashMap<String, Arc<Notify>>>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// The prefix of every key and channel by default: `tool-runtime:`.
    pub const DEFAULT_PREFIX: &'static str = "tool-runtime:";

    /// The most tasks the store keeps for one owner by default: 1,000, as
    /// [`MemoryTaskStore`](crate::MemoryTaskStore) does.
    pub const DEFAULT_MAX_TASKS_PER_OWNER: usize = 1_000;

    /// Connects to the Redis at `url` (`redis://host:port/db`, or
    /// `rediss://` with TLS when the `redis` crate is built with it): each
    /// attempt within 2 s, three attempts, then
    /// [`TaskStoreError::Unavailable`]. The connection is re-established by
    /// itself when it drops; a command that Redis does not answer within
    /// 5 s fails with `Unavailable`.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let client = redis::Client::open(url).map_err(unavailable)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(CONNECT_RETRIES);
        let connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(unavailable)?;
        Ok(Self {
            client,
            connection,
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            max_tasks_per_owner: Self::DEFAULT_MAX_TASKS_PER_OWNER,
            waiters: Arc::new(Waiters::default()),
            listening: Mutex::new(false),
        })
    }

    /// Puts every key and channel under `prefix` instead, to keep several
    /// applications' tasks apart in one Redis.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The most tasks the store keeps for one [owner](Task::owner) at once
    /// (at least 1); tasks without an owner are not counted.
    pub fn with_max_tasks_per_owner(mut self, max_tasks: usize) -> Self {
        self.max_tasks_per_owner = max_tasks.max(1);
        self
    }

    fn task_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn cancel_key(&self, id: &str) -> String {
        format!("{}cancel:{id}", self.prefix)
    }

    fn channel(&self) -> String {
        format!("{}cancel", self.prefix)
    }

    fn input_key(&self, id: &str) -> String {
        format!("{}input:{id}", self.prefix)
    }

    fn answer_key(&self, id: &str) -> String {
        format!("{}answer:{id}", self.prefix)
    }

    fn answer_channel(&self) -> String {
        format!("{}answer", self.prefix)
    }

    fn owner_key(&self, owner: &str) -> String {
        format!("{}owner:{owner}", self.prefix)
    }

    /// Makes room for a new task of `owner`: drops its oldest tasks that
    /// are over until it keeps fewer than its share, or says there is no
    /// room.
    async fn make_room(&self, owner: &str) -> Result<(), TaskStoreError> {
        let key = self.owner_key(owner);
        let mut connection = self.connection.clone();
        let now = unix_millis();
        // Those past their time to live are gone from Redis already.
        let _: i64 = connection
            .zrembyscore(&key, "-inf", now)
            .await
            .map_err(unavailable)?;
        let owned: usize = connection.zcard(&key).await.map_err(unavailable)?;
        let mut excess = (owned + 1).saturating_sub(self.max_tasks_per_owner);
        let mut start = 0;
        while excess > 0 {
            let ids: Vec<String> = connection
                .zrange(&key, start, start + ROOM_BATCH - 1)
                .await
                .map_err(unavailable)?;
            if ids.is_empty() {
                return Err(TaskStoreError::OwnerFull {
                    limit: self.max_tasks_per_owner,
                });
            }
            let keys: Vec<String> = ids.iter().map(|id| self.task_key(id)).collect();
            let texts: Vec<Option<String>> = redis::cmd("MGET")
                .arg(&keys)
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            // A task Redis forgot, or one that cannot be read, is over too.
            let over: Vec<&String> = ids
                .iter()
                .zip(texts)
                .filter(|(_, text)| {
                    text.as_deref()
                        .and_then(|text| serde_json::from_str::<Task>(text).ok())
                        .is_none_or(|task| task.is_over(now))
                })
                .map(|(id, _)| id)
                .take(excess)
                .collect();
            self.forget(&key, &over).await?;
            excess -= over.len();
            // The tasks still running stay where they were: read past them.
            start += isize::try_from(ids.len() - over.len()).unwrap_or(ROOM_BATCH);
        }
        Ok(())
    }

    /// Drops the tasks `ids` and what belongs to them, and takes them out
    /// of the owner's set `owner_key`.
    async fn forget(&self, owner_key: &str, ids: &[&String]) -> Result<(), TaskStoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.zrem(owner_key, ids).ignore();
        for id in ids {
            let keys = [
                self.task_key(id),
                self.cancel_key(id),
                self.input_key(id),
                self.answer_key(id),
            ];
            pipe.del(&keys).ignore();
        }
        let mut connection = self.connection.clone();
        pipe.query_async::<()>(&mut connection)
            .await
            .map_err(unavailable)
    }

    /// Counts `task` in its owner's set.
    async fn count_in(&self, owner: &str, task: &Task) -> Result<(), TaskStoreError> {
        let (score, keep) = match task.ttl_ms {
            Some(ttl) => (
                task.created_at_ms.saturating_add(ttl).to_string(),
                kept_for(task),
            ),
            None => ("+inf".to_owned(), -1),
        };
        let mut connection = self.connection.clone();
        redis::cmd("EVAL")
            .arg(COUNT_IN)
            .arg(1)
            .arg(self.owner_key(owner))
            .arg(score)
            .arg(&task.id)
            .arg(keep)
            .query_async::<i64>(&mut connection)
            .await
            .map(drop)
            .map_err(unavailable)
    }

    async fn read(&self, id: &str) -> Result<Option<Task>, TaskStoreError> {
        let mut connection = self.connection.clone();
        let text: Option<String> = connection
            .get(self.task_key(id))
            .await
            .map_err(unavailable)?;
        text.map(|text| serde_json::from_str(&text).map_err(|e| corrupt(id, e)))
            .transpose()
    }

    async fn cancel_is_stored(&self, id: &str) -> Result<bool, TaskStoreError> {
        let mut connection = self.connection.clone();
        connection
            .exists(self.cancel_key(id))
            .await
            .map_err(unavailable)
    }

    /// Starts the one subscription to the cancellation and answer
    /// channels, if it is not running.
    fn listen(&self) {
        let mut listening = self
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *listening {
            return;
        }
        *listening = true;
        let client = self.client.clone();
        let channels = [self.channel(), self.answer_channel()];
        let waiters = Arc::downgrade(&self.waiters);
        tokio::spawn(listen(client, channels, waiters));
    }
}

/// Hears what is published on `channels` (cancellations, then answers)
/// and wakes the waits for them, reconnecting after a failure, until the
/// store is dropped.
async fn listen(client: redis::Client, channels: [String; 2], waiters: Weak<Waiters>) {
    use futures_core::Stream;
    loop {
        if waiters.strong_count() == 0 {
            return;
        }
        if let Ok(mut pubsub) = client.get_async_pubsub().await
            && pubsub.subscribe(&channels[0]).await.is_ok()
            && pubsub.subscribe(&channels[1]).await.is_ok()
        {
            let mut messages = std::pin::pin!(pubsub.on_message());
            while let Some(message) =
                std::future::poll_fn(|cx| messages.as_mut().poll_next(cx)).await
            {
                let Some(waiters) = waiters.upgrade() else {
                    return;
                };
                let Ok(id) = message.get_payload::<String>() else {
                    continue;
                };
                if message.get_channel_name() == channels[0] {
                    if let Some(token) = lock(&waiters.cancels).get(&id) {
                        token.cancel();
                    }
                } else if let Some(answered) = lock(&waiters.answers).get(&id) {
                    answered.notify_waiters();
                }
            }
        }
        tokio::time::sleep(RECONNECT).await;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TaskStore for RedisTaskStore {
    fn create(&self, task: Task) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            if let Some(owner) = &task.owner {
                self.make_room(owner).await?;
            }
            let text = serde_json::to_string(&task).map_err(|e| corrupt(&task.id, e))?;
            let mut command = redis::cmd("SET");
            command.arg(self.task_key(&task.id)).arg(text).arg("NX");
            if let Some(ttl) = task.ttl_ms {
                command.arg("PX").arg(ttl.max(1));
            }
            let mut connection = self.connection.clone();
            let set: Option<String> = command
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            if set.is_none() {
                return Err(TaskStoreError::Unavailable(format!(
                    "a task with the id {} exists already",
                    task.id
                )));
            }
            match &task.owner {
                Some(owner) => self.count_in(owner, &task).await,
                None => Ok(()),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Task>> {
        Box::pin(async move {
            let Some(task) = self.read(id).await? else {
                return Ok(None);
            };
            if task.is_terminal() {
                return Ok(Some(task));
            }
            let mut connection = self.connection.clone();
            let waiting: HashMap<String, String> = connection
                .hgetall(self.input_key(id))
                .await
                .map_err(unavailable)?;
            let mut requests = BTreeMap::new();
            for (key, text) in waiting {
                let request = serde_json::from_str(&text).map_err(|e| corrupt(id, e))?;
                requests.insert(key, request);
            }
            Ok(Some(task.with_input_requests(requests)))
        })
    }

    fn update(&self, task: Task) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(&task).map_err(|e| corrupt(&task.id, e))?;
            let mut connection = self.connection.clone();
            // XX: a task Redis forgot stays forgotten; KEEPTTL: its expiry
            // stays where it was set.
            let _: Option<String> = redis::cmd("SET")
                .arg(self.task_key(&task.id))
                .arg(text)
                .arg("XX")
                .arg("KEEPTTL")
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            if task.is_terminal() {
                // An ended task has no requests waiting, nor answers to take.
                let _: i64 = connection
                    .del(&[self.input_key(&task.id), self.answer_key(&task.id)])
                    .await
                    .map_err(unavailable)?;
            }
            Ok(())
        })
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let Some(task) = self.read(id).await? else {
                return Ok(false);
            };
            let kept = kept_for(&task);
            let mut connection = self.connection.clone();
            let _: () = redis::pipe()
                .cmd("SET")
                .arg(self.cancel_key(id))
                .arg(1)
                .arg("PX")
                .arg(kept)
                .ignore()
                .cmd("PUBLISH")
                .arg(self.channel())
                .arg(id)
                .ignore()
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            Ok(!task.is_terminal())
        })
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.listen();
            let token = CancellationToken::new();
            lock(&self.waiters.cancels).insert(id.to_owned(), token.clone());
            let _unregister = Unregister(|| {
                lock(&self.waiters.cancels).remove(id);
            });
            loop {
                // A request made before the wait began, or whose message
                // was missed, is found in its key.
                if self.cancel_is_stored(id).await.unwrap_or(false) {
                    return Ok(());
                }
                tokio::select! {
                    () = token.cancelled() => return Ok(()),
                    () = tokio::time::sleep(CANCEL_RECHECK) => {}
                }
            }
        })
    }

    fn request_input<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        request: Value,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let Some(task) = self.read(id).await? else {
                return Ok(());
            };
            if task.is_terminal() {
                return Ok(());
            }
            let text = serde_json::to_string(&request).map_err(|e| corrupt(id, e))?;
            let input = self.input_key(id);
            let mut connection = self.connection.clone();
            let _: () = redis::pipe()
                .hset(&input, key, text)
                .ignore()
                .pexpire(&input, kept_for(&task))
                .ignore()
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            Ok(())
        })
    }

    fn respond<'a>(&'a self, id: &'a str, responses: Map<String, Value>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let Some(task) = self.read(id).await? else {
                return Ok(false);
            };
            let (input, answers) = (self.input_key(id), self.answer_key(id));
            let mut connection = self.connection.clone();
            let mut answered = false;
            for (key, answer) in responses {
                // Only a request still waiting takes an answer, once.
                let waiting: i64 = connection.hdel(&input, &key).await.map_err(unavailable)?;
                if waiting == 0 {
                    continue;
                }
                let text = serde_json::to_string(&answer).map_err(|e| corrupt(id, e))?;
                let _: () = redis::pipe()
                    .hset(&answers, &key, text)
                    .ignore()
                    .pexpire(&answers, kept_for(&task))
                    .ignore()
                    .query_async(&mut connection)
                    .await
                    .map_err(unavailable)?;
                answered = true;
            }
            if answered {
                let _: i64 = connection
                    .publish(self.answer_channel(), id)
                    .await
                    .map_err(unavailable)?;
            }
            Ok(true)
        })
    }

    fn answer<'a>(&'a self, id: &'a str, key: &'a str) -> StoreFuture<'a, Value> {
        Box::pin(async move {
            self.listen();
            let answered = Arc::clone(
                lock(&self.waiters.answers)
                    .entry(id.to_owned())
                    .or_insert_with(|| Arc::new(Notify::new())),
            );
            let _unregister = Unregister(|| {
                lock(&self.waiters.answers).remove(id);
            });
            let answers = self.answer_key(id);
            loop {
                let notified = answered.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let mut connection = self.connection.clone();
                let text: Option<String> =
                    connection.hget(&answers, key).await.map_err(unavailable)?;
                if let Some(text) = text {
                    let _: i64 = connection.hdel(&answers, key).await.map_err(unavailable)?;
                    return serde_json::from_str(&text).map_err(|e| corrupt(id, e));
                }
                tokio::select! {
                    () = notified => {}
                    () = tokio::time::sleep(CANCEL_RECHECK) => {}
                }
            }
        })
    }
}

/// Runs its closure when dropped: takes a wait out of its map.
struct Unregister<F: FnMut()>(F);

impl<F: FnMut()> Drop for Unregister<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// How long what belongs to `task` (its requests, their answers, a
/// cancellation) is kept: until the task may be forgotten, in milliseconds.
fn kept_for(task: &Task) -> i64 {
    let ms = match task.ttl_ms {
        Some(ttl) => task
            .created_at_ms
            .saturating_add(ttl)
            .saturating_sub(unix_millis())
            .max(1),
        None => u64::try_from(CANCEL_KEPT.as_millis()).unwrap_or(u64::MAX),
    };
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn unavailable(error: redis::RedisError) -> TaskStoreError {
    TaskStoreError::Unavailable(error.to_string())
}

fn corrupt(id: &str, error: serde_json::Error) -> TaskStoreError {
    TaskStoreError::Corrupt(format!("task {id}: {error}"))
}
