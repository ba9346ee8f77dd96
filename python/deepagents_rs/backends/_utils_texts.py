"""Texts of the backend protocol's log lines that a user reads: word for word the ones
deepagents 0.7.32 emits, since tools' results and logs must read the same. Placeholders are
``str.format`` fields."""

# deepagents 0.7.32, backends/protocol.py (_method_accepts_max_count): logged with the
# class's qualified name and the method name.
MAX_COUNT_UNINSPECTABLE = (
    "Could not inspect signature of %s.%s; assuming max_count is not supported. "
    "The cap will be enforced after the search instead of bounding it, so a huge "
    "result set is fully materialized before being trimmed."
)

# deepagents 0.7.32, backends/protocol.py (execute_accepts_timeout): logged with the class's
# qualified name.
EXECUTE_UNINSPECTABLE = (
    "Could not inspect signature of %s.execute; assuming timeout is not supported. "
    "This may indicate a backend packaging issue."
)
