//! The file tools' parameter schemas and default descriptions, and the grep/execute
//! descriptions retargeted for the tools a model call leaves visible.

use serde_json::Value;

use super::{Kind, texts};

pub(super) fn parameters(kind: Kind, video: bool) -> Value {
    let text = match kind {
        Kind::Ls => texts::LS_PARAMETERS,
        Kind::ReadFile if video => texts::READ_FILE_VIDEO_PARAMETERS,
        Kind::ReadFile => texts::READ_FILE_PARAMETERS,
        Kind::WriteFile => texts::WRITE_FILE_PARAMETERS,
        Kind::EditFile => texts::EDIT_FILE_PARAMETERS,
        Kind::Delete => texts::DELETE_PARAMETERS,
        Kind::Glob => texts::GLOB_PARAMETERS,
        Kind::Grep => texts::GREP_PARAMETERS,
        Kind::Execute => texts::EXECUTE_PARAMETERS,
    };
    // Constants; `every_tool_schema_is_json` checks each parses.
    serde_json::from_str(text).unwrap_or_default()
}

/// The description a tool gets when the user gave none; grep and execute depend on which
/// other tools are visible and whether commands can run; read_file on whether videos are
/// sampled.
pub(super) fn default_description(
    kind: Kind,
    visible: &[&str],
    execution: bool,
    video: bool,
) -> &'static str {
    match kind {
        Kind::Ls => texts::LS_DESCRIPTION,
        Kind::ReadFile if video => texts::READ_FILE_VIDEO_DESCRIPTION,
        Kind::ReadFile => texts::READ_FILE_DESCRIPTION,
        Kind::WriteFile => texts::WRITE_FILE_DESCRIPTION,
        Kind::EditFile => texts::EDIT_FILE_DESCRIPTION,
        Kind::Delete => texts::DELETE_DESCRIPTION,
        Kind::Glob => texts::GLOB_DESCRIPTION,
        Kind::Grep if execution => texts::GREP_DESCRIPTION,
        Kind::Grep => texts::GREP_DESCRIPTION_WITHOUT_EXECUTE,
        Kind::Execute => match (visible.contains(&"grep"), visible.contains(&"glob")) {
            (true, true) => texts::EXECUTE_DESCRIPTION,
            (true, false) => texts::EXECUTE_DESCRIPTION_WITH_GREP_ONLY,
            (false, true) => texts::EXECUTE_DESCRIPTION_WITH_GLOB_ONLY,
            (false, false) => texts::EXECUTE_DESCRIPTION_WITHOUT_SEARCH,
        },
    }
}

const DEFAULT_GREP: [&str; 2] = [
    texts::GREP_DESCRIPTION,
    texts::GREP_DESCRIPTION_WITHOUT_EXECUTE,
];
const DEFAULT_EXECUTE: [&str; 4] = [
    texts::EXECUTE_DESCRIPTION,
    texts::EXECUTE_DESCRIPTION_WITH_GREP_ONLY,
    texts::EXECUTE_DESCRIPTION_WITH_GLOB_ONLY,
    texts::EXECUTE_DESCRIPTION_WITHOUT_SEARCH,
];

/// `_with_filtered_grep_description` and `_with_filtered_execute_description` for one tool:
/// the default description grep or execute takes for what is `visible` (and whether commands
/// run), when its `description` is another of its defaults. `None` for any other tool, a
/// description of the user's, or one that already fits.
pub(crate) fn retargeted_description(
    name: &str,
    description: &str,
    visible: &[&str],
    execution: bool,
) -> Option<&'static str> {
    let (kind, defaults): (Kind, &[&str]) = match name {
        "grep" => (Kind::Grep, &DEFAULT_GREP),
        "execute" => (Kind::Execute, &DEFAULT_EXECUTE),
        _ => return None,
    };
    if !defaults.contains(&description) {
        return None;
    }
    Some(default_description(kind, visible, execution, false)).filter(|t| *t != description)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_schema_is_json() {
        for kind in Kind::ALL {
            assert!(parameters(kind, false).is_object(), "{kind:?}");
            assert!(parameters(kind, true).is_object(), "{kind:?}");
        }
    }
}
