//! What a resource's list entry tells a client about how to use it
//! (`annotations`): who it is for, how much it matters, when it last
//! changed.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use tool_runtime::context::Role;

/// A resource's `annotations`: who it is meant for (`audience`), how
/// important it is (`priority`, 0.0 to 1.0) and when it last changed
/// (`lastModified`). Each is a hint for the client, which may use them to
/// choose what to show or give its model.
///
/// ```
/// use tool_mcp::resources::ResourceAnnotations;
/// use tool_runtime::context::Role;
///
/// let annotations = ResourceAnnotations::new()
///     .with_audience([Role::User])
///     .with_priority(0.8)?;
/// assert_eq!(annotations.priority(), Some(0.8));
/// assert!(ResourceAnnotations::new().with_priority(1.5).is_err());
/// # Ok::<(), tool_mcp::resources::InvalidPriority>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceAnnotations {
    audience: Vec<Role>,
    priority: Option<f64>,
    last_modified: Option<SystemTime>,
}

/// A priority outside `0.0..=1.0` (or not a number), refused by
/// [`ResourceAnnotations::with_priority`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvalidPriority(pub f64);

impl fmt::Display for InvalidPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a resource's priority is from 0.0 (least important) to 1.0 (most), not {}",
            self.0
        )
    }
}

impl std::error::Error for InvalidPriority {}

impl ResourceAnnotations {
    /// None of them.
    pub fn new() -> Self {
        Self::default()
    }

    /// For `audience` (the user, the model, or both); written once each,
    /// in order.
    pub fn with_audience(mut self, audience: impl IntoIterator<Item = Role>) -> Self {
        self.audience.clear();
        for role in audience {
            if !self.audience.contains(&role) {
                self.audience.push(role);
            }
        }
        self
    }

    /// Of importance `priority`, from 0.0 (least) to 1.0 (most: the client
    /// should use it); refused outside that range.
    pub fn with_priority(mut self, priority: f64) -> Result<Self, InvalidPriority> {
        if !(0.0..=1.0).contains(&priority) {
            return Err(InvalidPriority(priority));
        }
        self.priority = Some(priority);
        Ok(self)
    }

    /// Last changed at `time` (written in UTC, ISO 8601).
    pub fn with_last_modified(mut self, time: SystemTime) -> Self {
        self.last_modified = Some(time);
        self
    }

    /// Whom it is meant for (empty: not said).
    pub fn audience(&self) -> &[Role] {
        &self.audience
    }

    /// How important it is, from 0.0 to 1.0.
    pub fn priority(&self) -> Option<f64> {
        self.priority
    }

    /// When it last changed.
    pub fn last_modified(&self) -> Option<SystemTime> {
        self.last_modified
    }

    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
        self.audience.is_empty() && self.priority.is_none() && self.last_modified.is_none()
    }

    /// In MCP's shape: `{audience?, priority?, lastModified?}`.
    pub(crate) fn to_json(&self) -> Value {
        let mut annotations = Map::new();
        if !self.audience.is_empty() {
            let audience = self
                .audience
                .iter()
                .map(|role| match role {
                    Role::User => Value::from("user"),
                    Role::Assistant => Value::from("assistant"),
                })
                .collect();
            annotations.insert("audience".into(), Value::Array(audience));
        }
        if let Some(priority) = self.priority {
            annotations.insert("priority".into(), priority.into());
        }
        if let Some(time) = self.last_modified {
            annotations.insert("lastModified".into(), iso8601(time).into());
        }
        Value::Object(annotations)
    }
}

/// `time` in UTC as ISO 8601 (RFC 3339): `2025-01-12T15:00:58Z`, with
/// milliseconds when it has any; a time before 1970 is written as 1970's
/// first second.
fn iso8601(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);
    let millis = since.subsec_millis();
    let fraction = if millis == 0 {
        String::new()
    } else {
        format!(".{millis:03}")
    };
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z")
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_are_written_in_utc() {
        let at = |seconds: u64, millis: u64| {
            iso8601(UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_millis(millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_736_694_058, 250), "2025-01-12T15:00:58.250Z");
        assert_eq!(at(4_107_542_399, 0), "2100-02-28T23:59:59Z");
    }
}
