//! Example tools, written the way an application would write them.
//!
//! The quickstart (`cargo run -p examples --example quickstart`) prints their
//! specs and runs the tool uses in `quickstart/tool_uses.json` against them.

pub mod documents;
pub mod search;
pub mod serving;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::{ToolContext, ToolError, tool};

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Get the weather forecast for a city.
///
/// Returns one line per day. The forecast is made up from the city's name,
/// so the same city always gets the same weather.
///
/// # Examples
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use tool_runtime::ToolContext;
/// let text = examples::weather_forecast("Paris".into(), 1, None, &ToolContext::new()).await.unwrap();
/// assert!(text.starts_with("Paris, day 1:"));
/// # });
/// ```
#[tool]
pub async fn weather_forecast(
    /// City name, e.g. "Paris"
    city: String,
    /// How many days ahead, 1 to 14
    #[tool(default = 3)]
    days: u32,
    /// Temperature unit; the caller's preference, else Celsius, when absent
    unit: Option<Unit>,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    if !(1..=14).contains(&days) {
        return Err(ToolError::new(format!(
            "days must be from 1 to 14, got {days}; ask for at most two weeks"
        )));
    }
    if city.trim().is_empty() {
        return Err(ToolError::new(
            "city is empty; give a city name such as \"Paris\"",
        ));
    }
    let unit = unit
        .or_else(|| {
            ctx.state()
                .get("preferred_unit")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
        })
        .unwrap_or(Unit::Celsius);
    // Pretend to wait on a weather service.
    tokio::task::yield_now().await;
    let seed = city.bytes().fold(7u32, |acc, b| {
        acc.wrapping_mul(31).wrapping_add(u32::from(b))
    });
    let skies = ["sunny", "cloudy", "rainy", "windy", "snowy"];
    let lines: Vec<String> = (0..days)
        .map(|day| {
            let mix = seed.wrapping_add(day.wrapping_mul(2_654_435_761));
            let celsius = f64::from(mix % 30) - 5.0;
            let (value, symbol) = match unit {
                Unit::Celsius => (celsius, "°C"),
                Unit::Fahrenheit => (celsius * 9.0 / 5.0 + 32.0, "°F"),
            };
            let sky = skies[(mix / 30) as usize % skies.len()];
            format!("{city}, day {}: {sky}, {value:.0}{symbol}", day + 1)
        })
        .collect();
    Ok(lines.join("\n"))
}

/// A unit of length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LengthUnit {
    /// Millimetres.
    Millimetre,
    /// Metres.
    Metre,
    /// Kilometres.
    Kilometre,
    /// Inches.
    Inch,
    /// Feet.
    Foot,
    /// Miles.
    Mile,
}

impl LengthUnit {
    fn metres(self) -> f64 {
        match self {
            LengthUnit::Millimetre => 0.001,
            LengthUnit::Metre => 1.0,
            LengthUnit::Kilometre => 1000.0,
            LengthUnit::Inch => 0.0254,
            LengthUnit::Foot => 0.3048,
            LengthUnit::Mile => 1609.344,
        }
    }
}

/// Convert a length from one unit to another.
#[tool]
pub fn convert_length(
    /// The length to convert
    value: f64,
    /// The unit `value` is in
    from: LengthUnit,
    /// The unit to convert to
    to: LengthUnit,
) -> String {
    let converted = value * from.metres() / to.metres();
    format!("{value} {from:?} = {converted:.4} {to:?}").to_lowercase()
}

/// Convert a distance in miles to kilometres.
///
/// Kept for agents written against it; `toolbox list` marks it deprecated.
#[tool(register = false, deprecated = "use convert_length")]
pub fn miles_to_km(
    /// The distance in miles
    miles: f64,
) -> String {
    format!("{miles} mile = {:.4} kilometre", miles * 1.609344)
}

/// How urgent a meeting is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Can move if something else comes up.
    Low,
    /// The usual.
    #[default]
    Normal,
    /// Takes precedence over other meetings.
    High,
}

/// When a meeting happens.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeSlot {
    /// The day, as `YYYY-MM-DD`.
    pub date: String,
    /// The start time, as `HH:MM` in 24-hour time.
    pub start: String,
    /// How long it lasts, in minutes.
    pub minutes: u16,
}

/// Someone invited to a meeting.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attendee {
    /// Their name.
    pub name: String,
    /// Their email address, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// A meeting on the calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Meeting {
    /// The meeting's id.
    pub id: String,
    /// What it is about.
    pub title: String,
    /// When it happens.
    pub slot: TimeSlot,
    /// Who is invited.
    pub attendees: Vec<Attendee>,
    /// How urgent it is.
    pub priority: Priority,
}

/// Put a meeting on the calendar and return it.
///
/// # Arguments
///
/// * `title` - What the meeting is about
/// * `slot` - When it happens
/// * `attendees` - Who to invite; at least one person
/// * `priority` - How urgent it is
#[tool]
pub fn schedule_meeting(
    title: String,
    slot: TimeSlot,
    attendees: Vec<Attendee>,
    #[tool(default)] priority: Priority,
) -> Result<Meeting, ToolError> {
    if attendees.is_empty() {
        return Err(ToolError::new("invite at least one attendee"));
    }
    let valid_date =
        slot.date.len() == 10 && slot.date.as_bytes()[4] == b'-' && slot.date.as_bytes()[7] == b'-';
    if !valid_date {
        return Err(ToolError::new(format!(
            "slot.date must look like 2025-03-14, got {:?}",
            slot.date
        )));
    }
    let id = format!("mtg-{}-{}", slot.date, slot.start.replace(':', ""));
    Ok(Meeting {
        id,
        title,
        slot,
        attendees,
        priority,
    })
}

/// Look up the balance of the signed-in customer's account.
///
/// The customer comes from the conversation, not from the model: the agent
/// passes `customer_id` in the invocation state.
#[tool]
pub async fn account_balance(
    /// Currency to show the balance in, as an ISO 4217 code
    #[tool(default = "EUR")]
    currency: String,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let Some(customer) = ctx.state().get("customer_id").and_then(|v| v.as_str()) else {
        return Err(ToolError::new(
            "no customer is signed in; ask the user to sign in first",
        ));
    };
    let rate = match currency.as_str() {
        "EUR" => 1.0,
        "USD" => 1.08,
        "GBP" => 0.85,
        other => {
            return Err(ToolError::new(format!(
                "unsupported currency {other:?}; use EUR, USD or GBP"
            )));
        }
    };
    tokio::task::yield_now().await;
    let cents = customer.bytes().map(u64::from).sum::<u64>() * 1234;
    let amount = cents as f64 / 100.0 * rate;
    Ok(format!("{customer}: {amount:.2} {currency}"))
}
