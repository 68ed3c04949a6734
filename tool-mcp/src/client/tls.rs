//! The TLS of the client's HTTP requests: rustls, on ring unless the
//! program chose another provider.

/// Builds the HTTP client's TLS on ring when the program has not chosen a
/// rustls crypto provider.
pub(crate) fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may have installed one meanwhile: either will do.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
