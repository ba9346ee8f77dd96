//! The refusal of a second mutation of one path within a single AI message
//! (deepagents' `_parallel_file_mutation_error`).

use serde_json::Value;

use crate::files::path::validate_path;
use crate::messages::Message;
use crate::middleware::ToolCallRequest;

const MUTATIONS: [&str; 3] = ["write_file", "edit_file", "delete"];

/// `_parallel_file_mutation_error`: an earlier call of the same AI message already mutates
/// this path.
pub(super) fn parallel_mutation(request: &ToolCallRequest) -> bool {
    let call = &request.call;
    if !MUTATIONS.contains(&call.name.as_str()) {
        return false;
    }
    let Some(path) = call.args.get("file_path").and_then(Value::as_str) else {
        return false;
    };
    let Ok(path) = validate_path(path, None) else {
        return false;
    };
    let ai = request
        .state
        .messages
        .iter_newest_first()
        .find_map(|m| match &**m {
            Message::Ai(ai) => Some(ai.clone()),
            _ => None,
        });
    for earlier in ai.iter().flat_map(|ai| ai.tool_calls.iter()) {
        if earlier.id == call.id {
            return false;
        }
        if !MUTATIONS.contains(&earlier.name.as_str()) {
            continue;
        }
        if let Some(p) = earlier.args.get("file_path").and_then(Value::as_str)
            && validate_path(p, None).is_ok_and(|p| p == path)
        {
            return true;
        }
    }
    false
}
