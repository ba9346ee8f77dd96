//! Known Anthropic model limits, generated from langchain-anthropic 1.7.10's profiles so
//! defaults (notably `max_tokens`) match what deepagents sends.

/// (model id, max output tokens, max input tokens); the input limit is for context management.
const PROFILES: &[(&str, u32, u32)] = &[
    ("claude-fable-5", 128000, 1000000),
    ("claude-fable-5-1", 128000, 1000000),
    ("claude-haiku-4-5", 64000, 200000),
    ("claude-haiku-4-5-20251001", 64000, 200000),
    ("claude-haiku-5-5", 128000, 1000000),
    ("claude-opus-4-5", 64000, 200000),
    ("claude-opus-4-5-20251101", 64000, 200000),
    ("claude-opus-4-6", 128000, 1000000),
    ("claude-opus-4-7", 128000, 1000000),
    ("claude-opus-4-8", 128000, 1000000),
    ("claude-opus-5", 128000, 1000000),
    ("claude-opus-5-5", 128000, 1000000),
    ("claude-sonnet-4-5", 64000, 200000),
    ("claude-sonnet-4-5-20250929", 64000, 200000),
    ("claude-sonnet-4-6", 128000, 1000000),
    ("claude-sonnet-5", 128000, 1000000),
    ("claude-sonnet-5-5", 128000, 1000000),
];

/// langchain-anthropic's fallback for models it has no profile for.
pub const FALLBACK_MAX_OUTPUT_TOKENS: u32 = 4096;

pub fn max_output_tokens(model: &str) -> u32 {
    PROFILES
        .iter()
        .find(|(id, _, _)| *id == model)
        .map_or(FALLBACK_MAX_OUTPUT_TOKENS, |p| p.1)
}

/// The model's input limit (`profile["max_input_tokens"]`), when langchain-anthropic knows it.
pub fn max_input_tokens(model: &str) -> Option<u32> {
    PROFILES.iter().find(|(id, _, _)| *id == model).map(|p| p.2)
}

/// The input fields of each model's profile, generated from langchain-anthropic 1.7.10's profiles (what
/// `UnsupportedContentMiddleware` reads): image, audio, video and PDF inputs, then images
/// and PDFs inside tool messages.
const INPUTS: &crate::model::InputProfiles = &[
    (
        "claude-fable-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-fable-5-1",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-haiku-4-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-haiku-4-5-20251001",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-haiku-5-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-mythos-5",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "claude-mythos-5-1",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "claude-opus-4-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-4-5-20251101",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-4-6",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-4-7",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-4-8",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-opus-5-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-sonnet-4-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-sonnet-4-5-20250929",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-sonnet-4-6",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-sonnet-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "claude-sonnet-5-5",
        [
            Some(true),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
];

/// What the model's profile says it takes as input (nothing, for a model it has no profile
/// for).
pub fn input_profile(model: &str) -> crate::model::InputProfile {
    crate::model::InputProfile::lookup(INPUTS, model)
}

/// The models whose profile (langchain-anthropic 1.7.10's) takes a system message in the
/// middle of the conversation (`mid_conversation_system_messages`), sent there as a `system`
/// turn, and whether it takes tools there too (`mid_conversation_tools`), as
/// `tool_addition` blocks on such a turn.
const MID_CONVERSATION: &[(&str, bool)] = &[
    ("claude-fable-5", true),
    ("claude-fable-5-1", true),
    ("claude-haiku-5-5", true),
    ("claude-mythos-5", true),
    ("claude-mythos-5-1", true),
    ("claude-opus-4-8", true),
    ("claude-opus-5", true),
    ("claude-opus-5-5", true),
    ("claude-sonnet-5", false),
    ("claude-sonnet-5-5", true),
];

pub fn mid_conversation_system_messages(model: &str) -> bool {
    MID_CONVERSATION.iter().any(|(name, _)| *name == model)
}

pub fn mid_conversation_tools(model: &str) -> bool {
    MID_CONVERSATION
        .iter()
        .any(|(name, tools)| *name == model && *tools)
}
