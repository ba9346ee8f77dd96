//! Words `BaseSandbox` shows the model or the user, and deepagents' read script, kept
//! verbatim because they are interface data (deepagents 0.7.32, backends/sandbox.py).

/// Paged read run by `execute()`; placeholders `path_b64`, `file_type`, `offset`, `limit`.
pub const READ_TEMPLATE: &str = r#"python3 -c "
import codecs, os, stat as _stat, sys, base64, json

MAX_OUTPUT_BYTES = 500 * 1024
MAX_BINARY_BYTES = 500 * 1024
MAX_LINE_COUNT_BYTES = 1024 * 1024
TRUNCATION_MSG = '\n\n' + (
    '[Output was truncated due to size limits. '
    'This paginated read result exceeded the sandbox stdout limit. '
    'Continue reading with a larger offset or smaller limit to inspect the rest of the file.]'
)

path = base64.b64decode('{path_b64}').decode('utf-8')

try:
    st = os.stat(path)
    if not _stat.S_ISREG(st.st_mode):
        print(json.dumps({{'error': 'not_a_file'}}))
        sys.exit(0)

    if st.st_size == 0:
        print(json.dumps({{'encoding': 'utf-8', 'content': 'System reminder: File exists but has empty contents'}}))
        sys.exit(0)

    file_type = '{file_type}'
    if file_type != 'text':
        if st.st_size > MAX_BINARY_BYTES:
            print(json.dumps({{'error': 'Binary file exceeds maximum preview size of ' + str(MAX_BINARY_BYTES) + ' bytes'}}))
            sys.exit(0)
        with open(path, 'rb') as f:
            raw = f.read()
        print(json.dumps({{'encoding': 'base64', 'content': base64.b64encode(raw).decode('ascii')}}))
        sys.exit(0)

    with open(path, 'rb') as f:
        raw_prefix = f.read(8192)

    # The 8192-byte prefix can slice a multi-byte UTF-8 char (CJK is 3 bytes,
    # emoji is 4); the incremental decoder buffers a trailing partial sequence
    # instead of raising, so legitimate text isn't misclassified as binary.
    is_binary = False
    try:
        codecs.getincrementaldecoder('utf-8')().decode(raw_prefix, final=False)
    except UnicodeDecodeError:
        is_binary = True

    if is_binary:
        with open(path, 'rb') as f:
            raw = f.read()
        print(json.dumps({{'encoding': 'base64', 'content': base64.b64encode(raw).decode('ascii')}}))
        sys.exit(0)

    offset = {offset}
    limit = {limit}

    # No lines requested: no line range to report. Reached whenever a caller
    # asks for zero lines, including a negative limit that _build_read_cmd
    # floored to 0; without this the empty window would fall through to the
    # offset-exceeds-length error below. Checked here, after the not-found,
    # directory, empty-file, and binary branches, so real failures and the
    # empty-file reminder are still reported first.
    if limit <= 0:
        print(json.dumps({{'encoding': 'utf-8', 'content': '', 'no_lines_requested': True}}))
        sys.exit(0)

    line_count = 0
    returned_lines = 0
    truncated = False
    parts = []
    current_bytes = 0
    msg_bytes = len(TRUNCATION_MSG.encode('utf-8'))
    effective_limit = MAX_OUTPUT_BYTES - msg_bytes

    at_eof = False
    with open(path, 'r', encoding='utf-8', newline=None) as f:
        while line_count < offset:
            raw_line = f.readline()
            if raw_line == '':
                at_eof = True
                break
            line_count += 1

        while not at_eof and returned_lines < limit and not truncated:
            raw_line = f.readline()
            if raw_line == '':
                at_eof = True
                break
            line_count += 1
            line = raw_line.rstrip('\n').rstrip('\r')
            piece = line if returned_lines == 0 else '\n' + line
            piece_bytes = len(piece.encode('utf-8'))
            if current_bytes + piece_bytes > effective_limit:
                truncated = True
                remaining_bytes = effective_limit - current_bytes
                if remaining_bytes > 0:
                    prefix = piece.encode('utf-8')[:remaining_bytes].decode('utf-8', errors='ignore')
                    if prefix:
                        parts.append(prefix)
                        current_bytes += len(prefix.encode('utf-8'))
                break

            parts.append(piece)
            current_bytes += piece_bytes
            returned_lines += 1

        # The page can fill (returned_lines == limit) exactly at EOF without the
        # loop readline ever returning an empty string. Detect that via position:
        # after reading whole lines from a UTF-8 handle the decoder state is clean
        # at a line boundary, so tell() is the raw byte offset and equals st_size
        # at EOF. Worst case if this ever misjudges is a surfaced offset-exceeds-
        # length error on the next re-read (large files only, where total_lines
        # stays None) -- never a silent skip, since a false at_eof of True cannot
        # arise (a clean or packed tell() past EOF cannot equal st_size).
        if not at_eof:
            at_eof = f.tell() == st.st_size

    if returned_lines == 0 and not truncated:
        print(json.dumps({{'error': 'Line offset ' + str(offset) + ' exceeds file length (' + str(line_count) + ' lines)'}}))
        sys.exit(0)

    # When the page already reached EOF, reuse its scan's count for free.
    # Otherwise re-scan for the total only when the file is small enough that
    # the extra pass stays bounded; surrogateescape keeps an invalid byte after
    # the requested page from invalidating content that was decoded successfully.
    if at_eof:
        total_lines = line_count
    elif st.st_size <= MAX_LINE_COUNT_BYTES:
        with open(path, 'r', encoding='utf-8', errors='surrogateescape', newline=None) as f:
            total_lines = sum(1 for _ in f)
    else:
        total_lines = None

    text = ''.join(parts)
    if truncated:
        text += TRUNCATION_MSG

    # A byte cap can cut the final rendered line mid-way; that partial line is
    # deliberately not counted toward returned_lines (see the truncation
    # branch), so next_offset resumes at its start and the whole boundary line
    # is re-read. If even the first requested line overflows the cap no full
    # line was returned: advance by one so the read still makes progress instead
    # of looping on the same page (that line's tail is unreadable via line
    # offsets).
    if truncated and returned_lines == 0:
        returned_lines = 1

    end_line = offset + returned_lines
    if total_lines is not None:
        next_offset = end_line if end_line < total_lines else None
    else:
        # total_lines is None only via the large-file branch above, which is
        # reached only when the page stopped short of EOF, so lines always
        # remain here.
        next_offset = end_line
    print(json.dumps({{
        'encoding': 'utf-8',
        'content': text,
        'total_lines': total_lines,
        'start_line': offset + 1,
        'end_line': end_line,
        'next_offset': next_offset,
    }}))
except FileNotFoundError:
    print(json.dumps({{'error': 'file_not_found'}}))
except PermissionError:
    print(json.dumps({{'error': 'permission_denied'}}))
" 2>&1"#;

/// `_map_edit_error`: the message for each error code of the edit scripts.
pub const EDIT_ERRORS: &[(&str, &str)] = &[
    ("file_not_found", "Error: File '{file_path}' not found"),
    (
        "permission_denied",
        "Error: Permission denied editing file '{file_path}'",
    ),
    ("not_a_file", "Error: '{file_path}' is not a regular file"),
    (
        "not_a_text_file",
        "Error: File '{file_path}' is not a text file",
    ),
    (
        "string_not_found",
        "Error: String not found in file: '{old_string}'",
    ),
    (
        "multiple_occurrences",
        "Error: String '{old_string}' appears multiple times. Use replace_all=True to replace all occurrences.",
    ),
];
/// Any other error code.
pub const EDIT_ERROR_OTHER: &str = "Error editing file '{file_path}': {error}";

/// `agrep`/`aglob` past their bound (`ASYNC_GREP_TIMEOUT`, `ASYNC_GLOB_TIMEOUT`); placeholders
/// `tool` (`grep` or `glob`) and `seconds` (the bound as Python formats it).
pub const SEARCH_TIMED_OUT: &str =
    "Error: {tool} timed out after {seconds}s. Try a more specific pattern or a narrower path.";
