//! Known OpenAI model input limits, generated from langchain-openai 1.8.1's profiles, so
//! summarization's defaults (fractions of `max_input_tokens`) match what deepagents computes
//! for a `ChatOpenAI` of the same model (an exact name lookup, as langchain-openai's).

const MAX_INPUT_TOKENS: &[(&str, u32)] = &[
    ("chatgpt-image-latest", 0),
    ("gpt-3.5-turbo", 16385),
    ("gpt-4", 8192),
    ("gpt-4-turbo", 128000),
    ("gpt-4.1", 1047576),
    ("gpt-4.1-mini", 1047576),
    ("gpt-4.1-nano", 1047576),
    ("gpt-4o", 128000),
    ("gpt-4o-2024-05-13", 128000),
    ("gpt-4o-2024-08-06", 128000),
    ("gpt-4o-2024-11-20", 128000),
    ("gpt-4o-mini", 128000),
    ("gpt-5", 272000),
    ("gpt-5-chat-latest", 272000),
    ("gpt-5-codex", 272000),
    ("gpt-5-mini", 272000),
    ("gpt-5-nano", 272000),
    ("gpt-5-pro", 272000),
    ("gpt-5.1", 272000),
    ("gpt-5.1-chat-latest", 272000),
    ("gpt-5.1-codex", 272000),
    ("gpt-5.1-codex-max", 272000),
    ("gpt-5.1-codex-mini", 272000),
    ("gpt-5.2", 272000),
    ("gpt-5.2-chat-latest", 272000),
    ("gpt-5.2-pro", 272000),
    ("gpt-5.3-codex", 400000),
    ("gpt-5.3-codex-spark", 128000),
    ("gpt-5.4", 1050000),
    ("gpt-5.4-mini", 400000),
    ("gpt-5.4-nano", 400000),
    ("gpt-5.4-pro", 1050000),
    ("gpt-5.5", 1050000),
    ("gpt-5.5-pro", 1050000),
    ("gpt-5.6", 1050000),
    ("gpt-5.6-luna", 1050000),
    ("gpt-5.6-sol", 1050000),
    ("gpt-5.6-terra", 1050000),
    ("gpt-6-astra", 1050000),
    ("gpt-6-luna", 1050000),
    ("gpt-6-sol", 1050000),
    ("gpt-6.1-sol", 1050000),
    ("gpt-6.1-terra", 1050000),
    ("gpt-daybreak-blue-latest", 1050000),
    ("gpt-daybreak-red-latest", 400000),
    ("gpt-image-1-mini", 0),
    ("gpt-image-1.5", 0),
    ("gpt-image-2", 0),
    ("gpt-realtime-2.1", 128000),
    ("o1", 200000),
    ("o1-pro", 200000),
    ("o3", 200000),
    ("o3-mini", 200000),
    ("o3-pro", 200000),
    ("o4-mini", 200000),
    ("text-embedding-3-large", 8191),
    ("text-embedding-3-small", 8191),
    ("text-embedding-ada-002", 8192),
];

/// The model's `profile["max_input_tokens"]`, when langchain-openai knows it.
pub fn max_input_tokens(model: &str) -> Option<u32> {
    MAX_INPUT_TOKENS
        .iter()
        .find(|(id, _)| *id == model)
        .map(|p| p.1)
}

/// The input fields of each model's profile, generated from langchain-openai 1.8.1's profiles (what
/// `UnsupportedContentMiddleware` reads): image, audio, video and PDF inputs, then images
/// and PDFs inside tool messages.
const INPUTS: &crate::model::InputProfiles = &[
    (
        "chatgpt-image-latest",
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
        "gpt-3.5-turbo",
        [
            Some(false),
            Some(false),
            Some(false),
            Some(false),
            Some(false),
            Some(false),
        ],
    ),
    (
        "gpt-4",
        [
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "gpt-4-turbo",
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
        "gpt-4.1",
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
        "gpt-4.1-mini",
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
        "gpt-4.1-nano",
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
        "gpt-4o",
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
        "gpt-4o-2024-05-13",
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
        "gpt-4o-2024-08-06",
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
        "gpt-4o-2024-11-20",
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
        "gpt-4o-mini",
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
        "gpt-5",
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
        "gpt-5-chat-latest",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5-codex",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5-mini",
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
        "gpt-5-nano",
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
        "gpt-5-pro",
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
        "gpt-5.1",
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
        "gpt-5.1-chat-latest",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.1-codex",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.1-codex-max",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.1-codex-mini",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.2",
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
        "gpt-5.2-chat-latest",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.2-codex",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.2-pro",
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
        "gpt-5.3-chat-latest",
        [None, None, None, Some(true), Some(true), Some(true)],
    ),
    (
        "gpt-5.3-codex",
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
        "gpt-5.3-codex-spark",
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
        "gpt-5.4",
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
        "gpt-5.4-mini",
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
        "gpt-5.4-nano",
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
        "gpt-5.4-pro",
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
        "gpt-5.5",
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
        "gpt-5.5-pro",
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
        "gpt-5.6",
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
        "gpt-5.6-luna",
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
        "gpt-5.6-sol",
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
        "gpt-5.6-terra",
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
        "gpt-6-astra",
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
        "gpt-6-luna",
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
        "gpt-6-sol",
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
        "gpt-6.1-sol",
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
        "gpt-6.1-terra",
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
        "gpt-daybreak-blue-latest",
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
        "gpt-daybreak-red-latest",
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
        "gpt-image-1-mini",
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
        "gpt-image-1.5",
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
        "gpt-image-2",
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
        "gpt-realtime-2.1",
        [
            Some(true),
            Some(true),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "o1",
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
        "o1-pro",
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
        "o3",
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
        "o3-mini",
        [
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "o3-pro",
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
        "o4-mini",
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
        "text-embedding-3-large",
        [
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "text-embedding-3-small",
        [
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
        ],
    ),
    (
        "text-embedding-ada-002",
        [
            Some(false),
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

/// The models whose profile (langchain-openai 1.8.1's `mid_conversation_tools`) takes tools
/// in the middle of the conversation, as a Responses `additional_tools` input item.
const MID_CONVERSATION_TOOLS: &[&str] = &[
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-5",
    "gpt-5-chat-latest",
    "gpt-5-codex",
    "gpt-5-mini",
    "gpt-5-nano",
    "gpt-5-pro",
    "gpt-5.1",
    "gpt-5.1-chat-latest",
    "gpt-5.1-codex",
    "gpt-5.1-codex-max",
    "gpt-5.1-codex-mini",
    "gpt-5.2",
    "gpt-5.2-chat-latest",
    "gpt-5.2-codex",
    "gpt-5.2-pro",
    "gpt-5.3-chat-latest",
    "gpt-5.3-codex",
    "gpt-5.3-codex-spark",
    "gpt-5.4",
    "gpt-5.4-mini",
    "gpt-5.4-nano",
    "gpt-5.4-pro",
    "gpt-5.5",
    "gpt-5.5-pro",
    "gpt-5.6",
    "gpt-5.6-luna",
    "gpt-5.6-sol",
    "gpt-5.6-terra",
    "gpt-6-astra",
    "gpt-6-luna",
    "gpt-6-sol",
    "gpt-6.1-sol",
    "o3",
    "o3-mini",
    "o3-pro",
];

/// Whether the model's profile takes tools in the middle of the conversation (langchain-openai
/// claims it only for a client on the Responses API, which carries them).
pub fn mid_conversation_tools(model: &str) -> bool {
    MID_CONVERSATION_TOOLS.contains(&model)
}
