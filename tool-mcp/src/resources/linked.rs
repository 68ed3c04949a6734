//! The resources `#[resource]` links into the program, which
//! [`Resources::global`](super::Resources::global) collects.

use futures_util::future::BoxFuture;
use tool_runtime::__private::inventory;

use super::{Contents, ReadRequest, Resource, ResourceError, ResourceSpec};
use crate::completion::{CompleteRequest, Completion};

/// The link-time registration `#[resource]` emits.
pub struct ResourceRegistration(&'static dyn Resource);

impl ResourceRegistration {
    /// The registration of `resource`.
    pub const fn new(resource: &'static dyn Resource) -> Self {
        Self(resource)
    }
}

inventory::collect!(ResourceRegistration);

/// Every linked `#[resource]`, ordered by URI (link order is not stable).
pub(super) fn linked() -> Vec<Linked> {
    let mut linked: Vec<_> = inventory::iter::<ResourceRegistration>
        .into_iter()
        .map(|registration| Linked(registration.0))
        .collect();
    linked.sort_by(|a, b| super::key(a.0.spec()).cmp(super::key(b.0.spec())));
    linked
}

/// A linked resource, held by the collection as any other.
pub(super) struct Linked(&'static dyn Resource);

impl Resource for Linked {
    fn spec(&self) -> &ResourceSpec {
        self.0.spec()
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        self.0.read(request)
    }

    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        self.0.complete(request)
    }
}
