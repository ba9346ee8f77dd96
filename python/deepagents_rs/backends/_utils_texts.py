"""Texts of the shared backend helpers that a model or a user reads: word for word the ones
deepagents 0.7.32 emits, since tools' results and logs must read the same. Placeholders are
``str.format`` fields."""

# deepagents 0.7.32, backends/utils.py (perform_string_replacement): the file lacks the
# trailing newline `old_string` ends with, and the key without it is unique.
EOF_NEWLINE_MISMATCH = (
    "Error: old_string ends with a newline, but the file does "
    "not end with a newline. Retry with the trailing newline "
    "removed from old_string (and from new_string if it also "
    "ends with a newline)."
)

# deepagents 0.7.32, backends/utils.py (perform_string_replacement): as above, but the key
# without the newline occurs `{count}` times.
EOF_NEWLINE_MISMATCH_AMBIGUOUS = (
    "Error: old_string ends with a newline, but the file does "
    "not end with a newline. With the trailing newline removed, "
    "old_string would appear {count} times in the file. "
    "Retry with the trailing newline removed and add surrounding "
    "context so the match is unique."
)

# deepagents 0.7.32, backends/utils.py (perform_string_replacement): several matches
# without replace_all.
AMBIGUOUS_OLD_STRING = (
    "Error: String '{old_string}' appears {occurrences} times in file. "
    "Use replace_all=True to replace all instances, or provide a more specific string with surrounding context."
)

# deepagents 0.7.32, backends/utils.py (regex_literal_hint).
REGEX_LITERAL_HINT = (
    "Note: grep matches literal text, not regex, so characters like "
    "`|`, `.*`, and `\\.` are searched verbatim. Search for the literal "
    "text you need instead; for `|` alternation, run a separate search "
    "per alternative."
)

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
