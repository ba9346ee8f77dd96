"""What the Nemotron 3 Ultra profile looks for in messages: the regular expressions that decide
when its repairs and nudges apply.

They are the profile's behaviour, so they accept exactly what deepagents 0.7.32's do; one per
line, grouped by the middleware that reads them.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# --- tool results -----------------------------------------------------------------------------

#: A `read_file` status header (`@@ lines A-B of N | ... @@`), with its line range.
READ_STATUS_HEADER = re.compile(r"^@@ lines (\d+)-(\d+)(?: of \d+)?(?: \| .*)? @@$")
#: A numbered source row of a `read_file` result: right-justified number, two spaces or a tab.
NUMBERED_ROW = re.compile(r"^ *\d+(?:  |\t)")

# --- tool calls written as text ---------------------------------------------------------------

FUNCTION_BLOCK = re.compile(r"<function=([^>\s]+)\s*>(.*?)</function>", re.DOTALL)
PARAMETER = re.compile(r"<parameter\s+name=([^>\s]+)\s*>(.*?)</parameter>", re.DOTALL)
ALT_FUNCTION_BLOCK = re.compile(r"<function>\s*(.*?)</function>\s*(?:</tool_call>)?", re.DOTALL | _I)
ALT_NAME = re.compile(r"<name\s*>(.*?)</name>|<name=([^<>\s]+)</name>", re.DOTALL | _I)
ALT_PARAMETER = re.compile(r"<parameter(?:\s+name=([^>\s]+))?\s*>(.*?)</parameter>", re.DOTALL | _I)
ALT_INLINE_ARG = re.compile(r"^\s*<?([A-Za-z_][\w-]*)>?\s*:\s*(.*?)\s*$", re.DOTALL)
THINK_BLOCK = re.compile(r"<think\b[^>]*>(.*?)</think>\s*", re.DOTALL | _I)

# --- tool names and arguments -----------------------------------------------------------------

#: The words of a tool name (`sendEmail`, `send_email`, `HTTPPost2`).
NAME_TOKEN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?=[A-Z]|$)|\d+")
VERSION_LITERAL = re.compile(r"\bv\d+(?:\.\d+)+(?:[-._A-Za-z0-9]*)?\b")
LONG_NUMBER = re.compile(r"\b\d{4,}\b")
CURRENT_ID_TOOL = re.compile(r"get_current_([a-z_]+)_id")
DISPLAY_TOOL = re.compile(r"get_([a-z_]+)_(?:name|title)")
DISPLAY_TOOL_ANY = re.compile(r"get_[a-z_]+_(?:name|title)")
RELATION_TOOL = re.compile(r"get_([a-z_]+)_([a-z_]+)")
ENTITY_TOOL = re.compile(r"get_([a-z_]+)_[a-z_]+")
MISSING_LOOKUP = re.compile(r"([a-z_]+) lookup for current ([a-z_]+) (\d+)")
MISSING_RELATION = re.compile(r"([a-z_]+)_id (\d+) from (?:current )?([a-z_]+) (\d+)")
MISSING_DISPLAY = re.compile(r"([a-z_]+)_id (\d+) title/name")

# --- the user's request -----------------------------------------------------------------------

RECURRENCE = re.compile(
    r"\b(daily|weekly|monthly|nightly|morning|evening|every\s+(?:day|week|month|morning|night)|each\s+(?:day|week|month)|at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?)\b",
    _I,
)
SOURCE_SCOPE_SUPPLIED = re.compile(
    r"\b(?:my|our|the|this|these|current|all)\s+(?:sources?|folders?|inboxes|labels|senders|projects?|repositories?|repos?|systems?|services?|workspaces?|accounts?)\b|\b(?:from|in|under|inside|within)\s+(?:/[\w./-]+|[\w.-]+\.[A-Za-z0-9]{1,8}|(?:the\s+)?[\w -]{2,80}?(?:source|folder|inbox|label|sender|project|repository|repo|system|service|workspace|account))\b",
    _I,
)
ANALYSIS_REQUEST = re.compile(r"\b(?:analy[sz]e|analysis|insight|report|dashboard)\b", _I)
SUPPORT_REQUEST = re.compile(r"\b(?:customer|support|ticket|question|respond|response)\b", _I)
DELIVERY_CONTEXT = re.compile(
    r"\b(?:brief|summary|summaries|report|digest|recurring|daily|weekly|calendar|monitoring)\b", _I
)
EXACT_REPLIES = (
    re.compile(
        r"\b(?:reply|respond|return|answer)\s+with\s+(?:the\s+)?(?:single\s+word|one\s+word)\s+([A-Za-z0-9_\-[\]{}]+)\b",
        _I,
    ),
    re.compile(r"\b(?:reply|respond|return|answer)\s+with\s+exactly\s*:?\s*[\"']?([^\"'.?!\n]{1,80})", _I),
    re.compile(r"\b(?:reply|respond|return|answer)\s+with\s+([A-Za-z0-9_\-[\]{}]+)\s+only\b", _I),
)
ACTION_REQUEST = re.compile(
    r"\b(proceed|go ahead|make it happen|do it|now|please\s+(?:cancel|book|update|upgrade|send|display|show|retrieve|start|fill|lock|charge)|i want to\s+(?:cancel|book|update|upgrade|send)|can you please\s+(?:cancel|book|update|upgrade|send))\b",
    _I,
)
CHAINED_ACTION = re.compile(
    r"\b(?:then|and|after(?:ward)?|after that|once)\b.{0,160}\b(?:email|send|notify|post|message|dm|create|schedule|book|cancel|update)\b",
    _I,
)
FILE_TASK = re.compile(
    r"\b(file|files|folder|folders|directory|directories|path|paths|read_file|write_file|edit_file|grep|glob|ls|filesystem|codebase|source code)\b",
    _I,
)
FILESYSTEM_ACCESS_REQUEST = re.compile(
    r"\b(?:read|open|inspect|review|summari[sz]e|analy[sz]e|process|edit)\b.{0,160}\b(?:file|files|document|transcript|log|repository|repo|codebase|source|/[\w./-]+|[\w.-]+\.[A-Za-z0-9]{1,8})\b",
    _I,
)
NEW_TASK = re.compile(
    r"\b(?:move on|switch(?:ing)? to|new task|different task|unrelated task|separate task|new topic|different topic|unrelated topic)\b",
    _I,
)
LARGE_READ = re.compile(
    r"\b(?:read|summari[sz]e|inspect|analy[sz]e|review|process)\b.{0,120}\b(?:file|document|transcript|log|repository|codebase|source|/[\w./-]+|[\w.-]+\.[A-Za-z0-9]{1,8})\b",
    _I,
)
FILE_REFERENCE = re.compile(r"(?:/[\w./-]+|\b[\w.-]+\.[A-Za-z0-9]{1,8}\b)")
FOLLOW_ON_WORK = re.compile(
    r"\b(?:do the same|same thing|another|next|also|continue|again)\b.{0,120}\b(?:file|document|transcript|log|repository|repo|codebase|source|/[\w./-]+|[\w.-]+\.[A-Za-z0-9]{1,8})\b",
    _I,
)

# --- the model's final message ----------------------------------------------------------------

SCHEDULE_QUESTION = re.compile(
    r"\b(day/time|timezone|time\s*zone|cadence|frequency|schedule|what time|which day|what day|how often|when should|when do you)\b",
    _I,
)
SOURCE_SCOPE_QUESTION = re.compile(
    r"\b(which|what)\s+(?:data\s+source|source|sources|scope|folders?|inboxes|labels|senders|projects?|repositories?|systems?|services?)\b",
    _I,
)
ANALYSIS_GOAL = re.compile(
    r"\b(?:goal|objective|question|metric|measure|compare|trend|segment|outcome|trying to learn)\b", _I
)
SUPPORT_DOMAIN = re.compile(r"\b(?:domain|product|service|business|industry|customers?|users?)\b", _I)
DELIVERY_QUESTION = re.compile(
    r"\b(?:how|where|which|what)\b.{0,80}\b(?:receive|send|deliver|delivery|channel|email|slack|sms|notify|notification)\b",
    _I,
)
QUESTION_START = re.compile(r"(?im)^\s*(?:[-*]\s*)?(?:what|which|how|where|when|who)\b")
VAGUE_COMPLETION = re.compile(r"^\s*(?:done|completed|all set|handled|taken care of|finished)[.!]*\s*$", _I)
WHITESPACE = re.compile(r"\s+")
