//! The TLS of the crate's HTTP requests (the client's, and the resource
//! server's fetches of its authorization server's metadata and keys):
//! rustls on ring unless the program chose another provider.

/// Installs ring as the process's rustls crypto provider when the program
/// has not chosen one (reqwest is built without a provider of its own).
///
/// rustls 0.23.48 deprecates ring's provider in favour of aws-lc-rs, for
/// post-quantum key exchange. aws-lc-rs needs a C toolchain and CMake to
/// build, which this crate does not ask of its users; a program that wants
/// it installs it as the default before its first request, and this leaves
/// it in place.
pub(crate) fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may have installed one meanwhile: either will do.
        #[allow(deprecated, reason = "ring builds without a C toolchain; see above")]
        let provider = rustls::crypto::ring::default_provider();
        let _ = provider.install_default();
    }
}
