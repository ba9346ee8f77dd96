"""Messages `StateBackend` and `StoreBackend` raise, worded exactly as deepagents words them."""

# deepagents 0.7.32, backends/state.py: StateBackend._get_config (no graph context)
STATE_OUTSIDE_GRAPH = (
    "StateBackend must be used inside a LangGraph graph execution "
    "(e.g. via create_deep_agent). It cannot read or write state "
    "outside of a graph context. To pre-populate files, pass them "
    'on invoke: agent.invoke({"messages": [...], "files": {...}})'
)

#: The same, where a graph's config is at hand but holds no channel read and send (a tool
#: called directly, outside a graph's step).
STATE_WITHOUT_CHANNELS = (
    "StateBackend requires CONFIG_KEY_READ / CONFIG_KEY_SEND in "
    "the LangGraph config. Make sure the backend is used inside "
    "a graph node or tool, not called directly. To pre-populate "
    "files, pass them on invoke: "
    'agent.invoke({"messages": [...], "files": {...}})'
)

# deepagents 0.7.32, backends/store.py: StoreBackend._get_store (no store anywhere)
STORE_OUTSIDE_GRAPH = (
    "StoreBackend must be used inside a LangGraph graph execution "
    "(e.g. via create_deep_agent), or initialized with an explicit "
    "store and namespace: StoreBackend(store=my_store, "
    "namespace=lambda _rt: ('filesystem',))"
)

# deepagents 0.7.32, backends/store.py: StoreBackend._get_namespace (factory read a missing Runtime)
NAMESPACE_FACTORY_NEEDS_RUNTIME = (
    "The namespace factory tried to read the Runtime, but it is "
    "unavailable (running outside a LangGraph graph execution). "
    "Use StoreBackend inside a graph (e.g. via create_deep_agent), "
    "or pass a namespace factory that does not read the Runtime."
)
