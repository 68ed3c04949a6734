//! Input during a task: a call's requests to whoever started it (an
//! elicitation, a sampling request) parked in the task, and the answers
//! brought back through the store.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::TaskError;
use crate::store::TaskStore;

/// What a task's call uses to ask whoever started it for input: each
/// request is parked in the task under a key of its own, the task reads as
/// [`InputRequired`](crate::TaskStatus::InputRequired) until it is
/// answered ([`Tasks::respond`](crate::Tasks::respond)), and the call waits meanwhile.
///
/// Given to the maker of the call's client in
/// [`Tasks::start_with_client`](crate::Tasks::start_with_client),
/// which shapes the requests and reads the answers (over MCP, `method` and
/// `params`, and the client's results). Cheap to clone.
#[derive(Clone)]
pub struct TaskInput {
    store: Arc<dyn TaskStore>,
    id: String,
    /// The keys given out in the task's life, and how many.
    keys: Arc<Mutex<(HashSet<String>, usize)>>,
}

impl std::fmt::Debug for TaskInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskInput")
            .field("task", &self.id)
            .finish_non_exhaustive()
    }
}

impl TaskInput {
    pub(crate) fn new(store: Arc<dyn TaskStore>, id: String) -> Self {
        Self {
            store,
            id,
            keys: Arc::new(Mutex::new((HashSet::new(), 0))),
        }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.id
    }

    /// A key new in the task's life: `name` when it has not been given out
    /// yet, else `name` or `kind` with a number (`elicitation-2`).
    pub fn key(&self, name: Option<&str>, kind: &str) -> String {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.1 += 1;
        let number = keys.1;
        let mut key = match name {
            Some(name) if !keys.0.contains(name) => name.to_owned(),
            Some(name) => format!("{name}-{number}"),
            None => format!("{kind}-{number}"),
        };
        while keys.0.contains(&key) {
            key.push('_');
        }
        keys.0.insert(key.clone());
        key
    }

    /// Parks `request` in the task under `key` (see [`key`](Self::key))
    /// and waits for its answer.
    pub async fn ask(&self, key: &str, request: Value) -> Result<Value, TaskError> {
        self.store.request_input(&self.id, key, request).await?;
        Ok(self.store.answer(&self.id, key).await?)
    }
}
