//! The runtime's own diagnostics: `tracing` events with the `tracing`
//! feature, nothing without it. The macros take `tracing`'s syntax; without
//! the feature their arguments are not evaluated.

#[cfg(feature = "tracing")]
macro_rules! debug { ($($event:tt)*) => { ::tracing::debug!($($event)*) } }
#[cfg(feature = "tracing")]
macro_rules! warning { ($($event:tt)*) => { ::tracing::warn!($($event)*) } }
#[cfg(feature = "tracing")]
macro_rules! error { ($($event:tt)*) => { ::tracing::error!($($event)*) } }
#[cfg(feature = "tracing")]
macro_rules! info { ($($event:tt)*) => { ::tracing::info!($($event)*) } }

#[cfg(not(feature = "tracing"))]
macro_rules! debug {
    ($($event:tt)*) => {
        ()
    };
}
#[cfg(not(feature = "tracing"))]
macro_rules! warning {
    ($($event:tt)*) => {
        ()
    };
}
#[cfg(not(feature = "tracing"))]
macro_rules! error {
    ($($event:tt)*) => {
        ()
    };
}
#[cfg(not(feature = "tracing"))]
macro_rules! info {
    ($($event:tt)*) => {
        ()
    };
}

pub(crate) use {debug, error, info, warning};
