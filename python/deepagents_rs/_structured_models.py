"""Models whose LangChain profile says they support native structured output, generated from
langchain-openai 1.8.1 and langchain-anthropic 1.7.10 profiles: a native model string decides
LangChain's ``AutoStrategy`` as a ``ChatOpenAI``/``ChatAnthropic`` of that model would, without
importing either package."""

STRUCTURED_OUTPUT_MODELS: dict[str, frozenset[str]] = {
    "openai": frozenset(
        {
            "gpt-4.1",
            "gpt-4.1-mini",
            "gpt-4.1-nano",
            "gpt-4o",
            "gpt-4o-2024-05-13",
            "gpt-4o-2024-08-06",
            "gpt-4o-2024-11-20",
            "gpt-4o-mini",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5-nano",
            "gpt-5-pro",
            "gpt-5.1",
            "gpt-5.2",
            "gpt-5.3-codex",
            "gpt-5.3-codex-spark",
            "gpt-5.4",
            "gpt-5.4-mini",
            "gpt-5.4-nano",
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
            "gpt-6.1-terra",
            "gpt-daybreak-blue-latest",
            "gpt-daybreak-red-latest",
            "o1",
            "o1-pro",
            "o3",
            "o3-mini",
            "o3-pro",
            "o4-mini",
        }
    ),
    "anthropic": frozenset(
        {
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-haiku-4-5",
            "claude-opus-4-5",
            "claude-opus-4-6",
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-opus-5",
            "claude-opus-5-5",
            "claude-sonnet-4-5",
            "claude-sonnet-4-6",
            "claude-sonnet-5",
            "claude-sonnet-5-5",
        }
    ),
}
