//! `current_time`: the time now, in an IANA time zone, in a chosen format.
//!
//! Time zones come from the tz database bundled into the binary (`jiff`'s
//! `tzdb-bundle-always`), so the tool gives the same answers on a machine
//! without `/usr/share/zoneinfo` (a slim container, Windows).

use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

/// How the `current_time` tool is set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CurrentTimeConfig {
    /// The IANA time zone used when a call names none, e.g. "Europe/Paris".
    #[serde(deserialize_with = "known_zone")]
    pub default_zone: String,
    /// The format used when a call names none: "rfc3339", "rfc2822",
    /// "unix", or a strftime pattern such as "%Y-%m-%d %H:%M".
    #[serde(deserialize_with = "known_format")]
    pub default_format: String,
}

impl Default for CurrentTimeConfig {
    fn default() -> Self {
        Self {
            default_zone: "UTC".into(),
            default_format: "rfc3339".into(),
        }
    }
}

fn known_zone<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let name = String::deserialize(deserializer)?;
    lookup_zone(&name).map_err(serde::de::Error::custom)?;
    Ok(name)
}

fn known_format<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let format = String::deserialize(deserializer)?;
    let sample = Timestamp::UNIX_EPOCH.to_zoned(TimeZone::UTC);
    render(&sample, &format).map_err(serde::de::Error::custom)?;
    Ok(format)
}

/// The time now, as `current_time` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CurrentTime {
    /// The time in the requested format.
    pub time: String,
    /// The IANA name of the time zone, e.g. "Europe/Paris".
    pub zone: String,
    /// The zone's offset from UTC at this instant, e.g. "+02:00".
    pub utc_offset: String,
    /// The zone's abbreviation at this instant, e.g. "CEST".
    pub abbreviation: String,
    /// Seconds since 1970-01-01T00:00:00Z.
    pub unix: i64,
}

/// Get the current date and time in a time zone.
///
/// Zones are IANA names such as "Europe/Paris", "America/New_York",
/// "Asia/Tokyo" or "UTC". Formats: "rfc3339" (2025-06-01T14:30:00+02:00),
/// "rfc2822" (Sun, 1 Jun 2025 14:30:00 +0200), "unix" (seconds since 1970),
/// or a strftime pattern such as "%A %d %B %Y, %H:%M".
#[tool(
    register = false,
    config = CurrentTimeConfig,
    read_only,
    open_world = false,
    timeout = "5s"
)]
pub fn current_time(
    /// IANA time zone, e.g. "Europe/Paris"; the configured default (UTC unless set) when absent
    #[tool(length(min = 1, max = 64))]
    zone: Option<String>,
    /// "rfc3339", "rfc2822", "unix" or a strftime pattern; the configured default (rfc3339 unless set) when absent
    #[tool(length(min = 1, max = 200))]
    format: Option<String>,
    config: Config<CurrentTimeConfig>,
) -> Result<CurrentTime, ToolError> {
    let zone = zone.as_deref().unwrap_or(&config.default_zone);
    let format = format.as_deref().unwrap_or(&config.default_format);
    time_at(Timestamp::now(), zone, format)
}

/// The answer of `current_time` for the instant `now`.
pub(crate) fn time_at(now: Timestamp, zone: &str, format: &str) -> Result<CurrentTime, ToolError> {
    let tz = lookup_zone(zone).map_err(ToolError::new)?;
    let zoned = now.to_zoned(tz);
    let time = render(&zoned, format).map_err(ToolError::new)?;
    let info = zoned.time_zone().to_offset_info(now);
    Ok(CurrentTime {
        time,
        zone: zoned.time_zone().iana_name().unwrap_or(zone).to_owned(),
        utc_offset: strftime(&zoned, "%:z").map_err(ToolError::internal)?,
        abbreviation: info.abbreviation().to_owned(),
        unix: now.as_second(),
    })
}

fn strftime(zoned: &Zoned, pattern: &str) -> Result<String, String> {
    jiff::fmt::strtime::format(pattern, zoned).map_err(|error| error.to_string())
}

fn render(zoned: &Zoned, format: &str) -> Result<String, String> {
    match format.trim().to_ascii_lowercase().as_str() {
        "rfc3339" | "iso8601" | "iso" => strftime(zoned, "%Y-%m-%dT%H:%M:%S%:z"),
        "rfc2822" => jiff::fmt::rfc2822::to_string(zoned).map_err(|error| error.to_string()),
        "unix" => Ok(zoned.timestamp().as_second().to_string()),
        _ if format.contains('%') => strftime(zoned, format).map_err(|error| {
            format!(
                "the strftime pattern {format:?} is not valid: {error}; e.g. \"%Y-%m-%d %H:%M\""
            )
        }),
        _ => Err(format!(
            "unknown format {format:?}; use \"rfc3339\", \"rfc2822\", \"unix\", or a strftime pattern such as \"%Y-%m-%d %H:%M\""
        )),
    }
}

/// Finds a zone by IANA name (case-insensitively); an unknown name is an
/// error that says how names are written and lists the closest ones.
fn lookup_zone(name: &str) -> Result<TimeZone, String> {
    let trimmed = name.trim();
    if let Ok(zone) = jiff::tz::db().get(trimmed) {
        return Ok(zone);
    }
    let close = closest_zones(trimmed, 3);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!("; the closest known zones are {}", close.join(", "))
    };
    Err(format!(
        "unknown time zone {name:?}: write an IANA zone name, Area/City with underscores for spaces, such as \"Europe/Paris\", \"America/New_York\" or \"UTC\"{hint}"
    ))
}

/// The `count` zone names closest to `input`, compared whole and by their
/// last part (so "Paris" finds "Europe/Paris").
fn closest_zones(input: &str, count: usize) -> Vec<String> {
    let wanted = input.to_lowercase().replace(' ', "_");
    let wanted_city = wanted.rsplit('/').next().unwrap_or(&wanted).to_owned();
    let mut scored: Vec<(f64, String)> = jiff::tz::db()
        .available()
        .map(|name| {
            let name = name.as_str().to_owned();
            let lower = name.to_lowercase();
            let city = lower.rsplit('/').next().unwrap_or(&lower);
            let score =
                strsim::jaro_winkler(&wanted, &lower).max(strsim::jaro_winkler(&wanted_city, city));
            (score, name)
        })
        .filter(|(score, _)| *score >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(count)
        .map(|(_, name)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-07-15T14:30:05Z.
    fn instant() -> Timestamp {
        Timestamp::from_second(1_721_053_805).unwrap()
    }

    #[test]
    fn formats_an_instant_in_a_zone() {
        let paris = time_at(instant(), "Europe/Paris", "rfc3339").unwrap();
        assert_eq!(paris.time, "2024-07-15T16:30:05+02:00");
        assert_eq!(paris.zone, "Europe/Paris");
        assert_eq!(paris.utc_offset, "+02:00");
        assert_eq!(paris.abbreviation, "CEST");
        assert_eq!(paris.unix, 1_721_053_805);

        let utc = time_at(instant(), "UTC", "rfc2822").unwrap();
        assert_eq!(utc.time, "Mon, 15 Jul 2024 14:30:05 +0000");
        let unix = time_at(instant(), "Asia/Tokyo", "unix").unwrap();
        assert_eq!(unix.time, "1721053805");
        let custom = time_at(instant(), "america/new_york", "%A %d %B %Y, %H:%M").unwrap();
        assert_eq!(custom.time, "Monday 15 July 2024, 10:30");
        assert_eq!(custom.zone, "America/New_York");
    }

    #[test]
    fn an_unknown_zone_says_how_to_write_one() {
        let error = time_at(instant(), "Paris", "rfc3339").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("unknown time zone \"Paris\""), "{message}");
        assert!(message.contains("\"Europe/Paris\""), "{message}");
        assert!(
            message.contains("closest known zones are Europe/Paris"),
            "{message}"
        );

        let error = time_at(instant(), "America/New York", "rfc3339").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("closest known zones are America/New_York"),
            "{error}"
        );
    }

    #[test]
    fn an_unknown_format_is_an_error() {
        let error = time_at(instant(), "UTC", "long").unwrap_err();
        assert!(
            error.to_string().contains("unknown format \"long\""),
            "{error}"
        );
        let error = time_at(instant(), "UTC", "%Y-%J").unwrap_err();
        assert!(error.to_string().contains("is not valid"), "{error}");
    }
}
