//! Known OpenAI model input limits, from langchain-openai 1.8.1's profiles (the tables are in
//! `profile_tables`), so summarization's defaults (fractions of `max_input_tokens`) match what
//! deepagents computes for a `ChatOpenAI` of the same model (an exact name lookup, as
//! langchain-openai's).

use super::profile_tables::{INPUTS, MAX_INPUT_TOKENS, MID_CONVERSATION_TOOLS};

/// The model's `profile["max_input_tokens"]`, when langchain-openai knows it.
pub fn max_input_tokens(model: &str) -> Option<u32> {
    MAX_INPUT_TOKENS
        .iter()
        .find(|(id, _)| *id == model)
        .map(|p| p.1)
}

/// What the model's profile says it takes as input (nothing, for a model it has no profile
/// for).
pub fn input_profile(model: &str) -> crate::model::InputProfile {
    crate::model::InputProfile::lookup(INPUTS, model)
}

/// Whether the model's profile takes tools in the middle of the conversation (langchain-openai
/// claims it only for a client on the Responses API, which carries them).
pub fn mid_conversation_tools(model: &str) -> bool {
    MID_CONVERSATION_TOOLS.contains(&model)
}
