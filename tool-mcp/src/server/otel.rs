//! The client's trace context as the parent of a call's spans (feature
//! `otel`): a W3C `traceparent` (and `tracestate`) in a request's `_meta`,
//! read with the text map propagator the program registered
//! (`opentelemetry::global::set_text_map_propagator`).

use opentelemetry::propagation::Extractor;
use serde_json::{Map, Value};

/// A request's `_meta`, read as propagation headers.
struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Makes the trace context in `meta`, if any, the parent of `span`.
pub(super) fn adopt_parent(span: &tracing::Span, meta: &Map<String, Value>) {
    if !meta.contains_key("traceparent") {
        return;
    }
    let context = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Meta(meta))
    });
    if let Err(error) = tracing_opentelemetry::OpenTelemetrySpanExt::set_parent(span, context) {
        tracing::debug!(%error, "the client's trace context could not be adopted");
    }
}
