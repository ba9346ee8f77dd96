//! The note an error gets on its way out of a node's task: LangGraph's runner adds "During
//! task with name '<node>' and id '<task id>'" for the task and each task around it. The
//! task ids are the host's (it names the tasks for the code the node runs), so the host
//! adds the notes, set by the binding; without it errors leave as they are.

use std::sync::OnceLock;

use futures::future::BoxFuture;

use crate::error::Error;
use crate::middleware::NodePlace;
use crate::tools::HostContext;

/// The host's note on `error` leaving the task of node `node` at `place`, or `None` when the
/// error is not the host's (nothing to note it on).
pub type TaskNote = fn(&Error, &str, &NodePlace, &HostContext) -> Option<BoxFuture<'static, ()>>;

static TASK_NOTE: OnceLock<TaskNote> = OnceLock::new();

/// Sets the host's note (once; later calls are ignored).
pub fn set_task_note(note: TaskNote) {
    let _ = TASK_NOTE.set(note);
}

/// Notes `error`, which leaves the task of `node` at `place` (a hook's node or `model`).
pub(super) async fn note_task_error(error: &Error, node: &str, place: &NodePlace, host: &HostContext) {
    if let Some(noted) = TASK_NOTE.get().and_then(|note| note(error, node, place, host)) {
        noted.await;
    }
}
