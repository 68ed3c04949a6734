//! Tests of this feature.
