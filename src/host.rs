//! Values owned by the host language that the core carries without looking inside: a
//! Python object the user's code returned (a tool's artifact, a parsed structured response)
//! goes back to the user as the same object.

use std::any::Any;
use std::sync::Arc;

#[derive(Clone)]
pub struct HostValue(pub Arc<dyn Any + Send + Sync>);

impl HostValue {
    pub fn new(value: impl Any + Send + Sync) -> Self {
        HostValue(Arc::new(value))
    }

    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for HostValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostValue(..)")
    }
}

impl PartialEq for HostValue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
