//! The note an error gets on its way out of a node's task: LangGraph's runner adds "During
//! task with name '<node>' and id '<task id>'" for the task and each task around it. The
//! task ids are the host's (it names the tasks for the code the node runs), so the host
//! makes the notes, set by the binding: it adds them to an error of its own (its exception)
//! and hands them back for one of the core's (a native provider's, which carries them until
//! the host makes its exception). Without a host's note errors leave as they are.

use std::sync::OnceLock;

use futures::future::BoxFuture;

use crate::error::{Error, ModelError};
use crate::middleware::NodePlace;
use crate::tools::HostContext;

/// The host's notes on `error` leaving the task of node `node` at `place`: the notes for an
/// error of the core's own, none for the host's (noted in place), `None` when there is
/// nothing to note.
pub type TaskNote =
    fn(&Error, &str, &NodePlace, &HostContext) -> Option<BoxFuture<'static, Vec<String>>>;

static TASK_NOTE: OnceLock<TaskNote> = OnceLock::new();

/// Sets the host's note (once; later calls are ignored).
pub fn set_task_note(note: TaskNote) {
    let _ = TASK_NOTE.set(note);
}

/// Notes `error`, which leaves the task of `node` at `place` (a hook's node or `model`).
pub(super) async fn note_task_error(
    error: &mut Error,
    node: &str,
    place: &NodePlace,
    host: &HostContext,
) {
    let Some(noted) = TASK_NOTE
        .get()
        .and_then(|note| note(error, node, place, host))
    else {
        return;
    };
    let notes = noted.await;
    if let Error::Model(ModelError::Provider(e)) = error
        && !notes.is_empty()
    {
        e.notes.get_or_insert_default().extend(notes);
    }
}
