//! The scripts `BaseSandbox` sends through `execute()` (our own; deepagents' read script is
//! in `sandbox_texts`), as `str.format` templates: `{name}` placeholders, doubled braces for
//! literal ones. Each is a `python3 -c "..."` program inside a shell double-quoted string, so
//! its body avoids `$`, backticks and double quotes; arguments travel base64-encoded.

/// Lists a folder, one JSON object per entry; placeholder `path_b64`.
pub const LS_TEMPLATE: &str = r#"python3 -c "
import base64, json, os

folder = base64.b64decode('{path_b64}').decode('utf-8')
problems = ((FileNotFoundError, 'path_not_found'), (NotADirectoryError, 'not_a_directory'),
            (PermissionError, 'permission_denied'))
try:
    with os.scandir(folder) as listing:
        for item in listing:
            row = {{'path': os.path.join(folder, item.name), 'is_dir': item.is_dir(follow_symlinks=False)}}
            print(json.dumps(row))
except OSError as exc:
    code = next((name for kind, name in problems if isinstance(exc, kind)), None)
    if code is None:
        raise
    print(json.dumps({{'error': code}}))
" 2>/dev/null"#;

/// Creates the parent folders of a file about to be uploaded; placeholder `path_b64`. Line
/// layout matters: a failure prints a traceback that becomes the user's error message.
pub const WRITE_CHECK_TEMPLATE: &str = r#"python3 -c "
import os, base64

path = base64.b64decode('{path_b64}').decode('utf-8')
os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
" 2>&1"#;

/// The edit functions both edit scripts run (a macro so `concat!` can join it into both
/// templates at compile time): the replacement, its line-ending forms and its error codes.
macro_rules! edit_functions {
    () => {
        r#"def line_ending_forms(old, new):
    # read() gives the model LF text, so old may not occur as sent in a CRLF file. The first
    # form that does occur shows the file's line endings, and new is rewritten to match.
    cr, lf = chr(13), chr(10)
    as_lf = lambda s: s.replace(cr + lf, lf)
    as_crlf = lambda s: as_lf(s).replace(lf, cr + lf)
    return ((old, new), (as_crlf(old), as_crlf(new)), (as_lf(old), as_lf(new)))


def replace_in(target, old, new, replace_all):
    info = os.stat(target)
    if not stat.S_ISREG(info.st_mode):
        return {{'error': 'not_a_file'}}
    with open(target, 'rb') as fh:
        raw = fh.read()
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError:
        return {{'error': 'not_a_text_file'}}
    for find, put in line_ending_forms(old, new):
        count = text.count(find)
        if count:
            break
    else:
        return {{'error': 'string_not_found'}}
    if count > 1 and not replace_all:
        return {{'error': 'multiple_occurrences', 'count': count}}
    with open(target, 'wb') as fh:
        fh.write(text.replace(find, put, -1 if replace_all else 1).encode('utf-8'))
    return {{'count': count}}


def edit(target, old, new, replace_all):
    try:
        return replace_in(target, old, new, replace_all)
    except FileNotFoundError:
        return {{'error': 'file_not_found'}}
    except PermissionError:
        return {{'error': 'permission_denied'}}

"#
    };
}

/// Inline edit; placeholder `payload_b64` (base64 JSON with `path`, `old`, `new`,
/// `replace_all`). The newline after the heredoc terminator stays: some integrations wait
/// for it to see the end of input.
pub const EDIT_TEMPLATE: &str = concat!(
    r#"python3 -c "
import base64, json, os, stat, sys

"#,
    edit_functions!(),
    r#"request = json.loads(base64.b64decode(sys.stdin.read().strip()).decode('utf-8'))
target, old, new = request['path'], request['old'], request['new']
print(json.dumps(edit(target, old, new, request.get('replace_all', False))))
" 2>&1 <<'__DEEPAGENTS_EDIT_EOF__'
{payload_b64}
__DEEPAGENTS_EDIT_EOF__
"#
);

/// Edit from uploaded temp files; placeholders `old_path_b64`, `new_path_b64`, `target_b64`,
/// `replace_all`.
pub const EDIT_TMPFILE_TEMPLATE: &str = concat!(
    r#"python3 -c "
import base64, json, os, stat, sys

"#,
    edit_functions!(),
    r#"old_path = base64.b64decode('{old_path_b64}').decode('utf-8')
new_path = base64.b64decode('{new_path_b64}').decode('utf-8')
target = base64.b64decode('{target_b64}').decode('utf-8')
replace_all = {replace_all}


def uploaded(name):
    with open(name, 'rb') as fh:
        return fh.read().decode('utf-8')


reply = None
try:
    old, new = uploaded(old_path), uploaded(new_path)
except Exception as exc:
    reply = {{'error': 'temp_read_failed', 'detail': str(exc)}}
finally:
    # The uploads serve this one edit; remove them whatever happened.
    for name in (old_path, new_path):
        try:
            os.remove(name)
        except OSError:
            pass
print(json.dumps(reply or edit(target, old, new, replace_all)))
" 2>&1"#
);

/// Search through a path glob; placeholders `path_b64`, `glob_b64`, `pattern_b64`,
/// `exclude_b64` (NUL-joined folder names to skip) and `max_count` (an int or `None`). It
/// ends without `|| true`: a clean run exits 0 even with no match, so a non-zero exit is a
/// real failure the parser reports.
pub const GREP_PATH_GLOB_TEMPLATE: &str = r#"python3 -c "
import base64, glob, os, sys


def arg(text):
    return base64.b64decode(text).decode('utf-8')


search_path = arg('{path_b64}')
glob_pat = arg('{glob_b64}')
sought = arg('{pattern_b64}')
skip_dirs = set(arg('{exclude_b64}').split(chr(0))) - {{''}}
max_count = {max_count}


def files_to_search():
    # A file is searched as given; the glob only applies below a directory.
    if not os.path.isdir(search_path):
        return [(search_path, search_path)]
    os.chdir(search_path)
    # Without the lstrip a leading slash would send glob.glob to the filesystem root
    # instead of anchoring the pattern at the search root.
    rel_glob = glob_pat.lstrip('/')
    if '..' in rel_glob.replace(chr(92), '/').split('/'):
        sys.stderr.write('glob contains path traversal' + chr(10))
        sys.exit(2)
    real_root = os.path.realpath(search_path)
    chosen = []
    for rel in sorted(glob.glob(rel_glob, recursive=True)):
        if skip_dirs.intersection(rel.replace(chr(92), '/').split('/')[:-1]):
            continue
        real = os.path.realpath(rel)
        if real == real_root or real.startswith(real_root + os.sep):
            # Shown under the root as given, like grep -r prints its hits.
            chosen.append((real, os.path.join(search_path, os.path.relpath(real, real_root))))
    return chosen


hits = 0
for real, shown in files_to_search():
    try:
        with open(real, 'r', encoding='utf-8', errors='ignore') as fh:
            for number, line in enumerate(fh, 1):
                if sought not in line:
                    continue
                # Each record ends in a newline of its own, even for an unterminated last line.
                sys.stdout.write(shown + chr(0) + str(number) + ':' + line.rstrip(chr(10)) + chr(10))
                hits += 1
                # Stop one record past the cap so the host can tell capped from complete.
                if max_count is not None and hits > max_count:
                    sys.exit(0)
    except OSError:
        pass
" 2>/dev/null"#;

/// Walking glob; placeholders `path_b64` (search root) and `pattern_b64`. Errors:
/// `path_not_found`, `not_a_directory`, `permission_denied`, `invalid_pattern`,
/// `pattern_too_broad`, `internal_error: ...`; warnings `walk_errors` and `truncated`.
pub const GLOB_TEMPLATE: &str = r#"python3 -c "
import base64, fnmatch, functools, json, os, time

TIME_BUDGET = 5.0
MAX_EXPANSIONS = 1000
MAX_MATCHES = 10000
BACKSLASH = chr(92)

root_arg = base64.b64decode('{path_b64}').decode('utf-8')
pattern = base64.b64decode('{pattern_b64}').decode('utf-8')


def brace_group(pat, start):
    # From the brace at start: where its group closes, and its top-level alternatives.
    depth = 0
    options = ['']
    for at in range(start, len(pat)):
        ch = pat[at]
        if ch == '{{':
            depth += 1
        elif ch == '}}':
            depth -= 1
            if depth == 0:
                return at, options
        if at == start:
            continue
        if ch == ',' and depth == 1:
            options.append('')
        else:
            options[-1] += ch
    return -1, options


def expand_braces(pat):
    # Every alternative spelled out, nested groups too, or None past MAX_EXPANSIONS: the
    # product of n groups grows as 2 to the n and would hang the sandbox.
    start = pat.find('{{')
    end, options = brace_group(pat, start) if start >= 0 else (-1, None)
    if end < 0:
        return [pat]
    head, rest = pat[:start], pat[end + 1:]
    if len(options) == 1:
        # No comma: the group is literal text, yet later groups still expand.
        tails = expand_braces(rest)
        return None if tails is None else [pat[:end + 1] + tail for tail in tails]
    spelled = []
    for option in options:
        tails = expand_braces(option + rest)
        if tails is None:
            return None
        spelled.extend(head + tail for tail in tails)
        if len(spelled) > MAX_EXPANSIONS:
            return None
    return spelled


def caret_to_bang(pat):
    # fnmatch takes a leading ^ in a class literally; bash, ripgrep and wcmatch negate.
    out = []
    at = 0
    while True:
        opening = pat.find('[', at)
        # Searching from opening + 2 keeps a ] right after the bracket as a member.
        closing = pat.find(']', opening + 2) if opening >= 0 else -1
        if closing < 0:
            out.append(pat[at:])
            return ''.join(out)
        members = pat[opening + 1:closing]
        if members.startswith('^'):
            members = '!' + members[1:]
        out.append(pat[at:opening] + '[' + members + ']')
        at = closing + 1


def hidden(name):
    return name.startswith('.')


def name_fits(name, seg):
    # fnmatchcase: plain fnmatch would turn case-insensitive on a non-POSIX host.
    return not (hidden(name) and not hidden(seg)) and fnmatch.fnmatchcase(name, seg)


def segments_fit(names, segs):
    # Memoized, since ** backtracks exponentially on shapes like **/*/**/*.
    @functools.lru_cache(maxsize=None)
    def fits(i, j):
        while j < len(segs):
            if segs[j] != '**':
                if i == len(names) or not name_fits(names[i], segs[j]):
                    return False
                i += 1
                j += 1
                continue
            while j < len(segs) and segs[j] == '**':
                j += 1
            if j == len(segs):
                # A trailing ** needs at least one name below it and never enters dot names.
                return i < len(names) and not any(hidden(n) for n in names[i:])
            for k in range(i, len(names) + 1):
                if fits(k, j):
                    return True
                if k < len(names) and hidden(names[k]):
                    return False
            return False
        return i == len(names)

    return fits(0, 0)


def path_fits(rel, candidates):
    names = [] if rel in ('', '.') else [n for n in rel.split('/') if n]
    for cand in candidates:
        raw = cand.lstrip('/').split('/')
        segs = [s for s in raw if s]
        # A trailing slash asks for a directory, and only files are reported; after ** the
        # slash is absorbed.
        wants_dir = len(raw) > 1 and raw[-1] == '' and segs[-1:] != ['**']
        if not wants_dir and segments_fit(names, segs):
            return True
    return False


def wanted(rel, candidates):
    if '/' in pattern:
        return path_fits(rel, candidates)
    name = rel.rsplit('/', 1)[-1]
    return any(name_fits(name, cand) for cand in candidates)


walk_errors = []


def note_walk_error(err):
    # The failing path, not only the class: it tells one bad mount from an unreadable tree.
    walk_errors.append(type(err).__name__ + ':' + str(getattr(err, 'filename', '?')))


def regular_file_inside(full, real_root, root_prefix):
    real = os.path.realpath(full)
    return (real == real_root or real.startswith(root_prefix)) and os.path.isfile(real)


def walk(real_root, root_prefix, candidates):
    # Pseudo-filesystems never hold user files and are effectively endless.
    skip_top = ('proc', 'sys', 'dev') if real_root == os.sep else ()
    deadline = time.monotonic() + TIME_BUDGET
    found = []
    cut = False
    try:
        # onerror: os.walk would otherwise drop unreadable subtrees without a word.
        for dirpath, dirnames, filenames in os.walk('.', onerror=note_walk_error):
            if cut:
                break
            if dirpath == '.':
                dirnames[:] = [d for d in dirnames if d not in skip_top]
            if time.monotonic() > deadline:
                cut = True
                break
            for name in filenames:
                if time.monotonic() > deadline or len(found) >= MAX_MATCHES:
                    cut = True
                    break
                full = name if dirpath == '.' else os.path.join(dirpath, name)
                rel = full.replace(BACKSLASH, '/')
                if rel.startswith('./'):
                    rel = rel[2:]
                if wanted(rel, candidates) and regular_file_inside(full, real_root, root_prefix):
                    found.append(rel)
    except Exception as exc:
        # A failure mid-walk keeps what was found; the partial set is reported as such.
        walk_errors.append(type(exc).__name__ + ':' + str(exc)[:100])
    return found, cut


def report(found, cut):
    for rel in sorted(found):
        print(json.dumps({{'path': rel, 'is_dir': False}}))
    if walk_errors:
        print(json.dumps({{'warning': 'walk_errors', 'count': len(walk_errors), 'sample': walk_errors[:5]}}))
    if cut:
        print(json.dumps({{'warning': 'truncated'}}))


def prepare():
    # Everything that can fail before a match exists; its failures are the only errors.
    real_root = os.path.realpath(root_arg)
    # realpath of / is / already; adding a separator would give // and lose every match.
    root_prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
    os.chdir(root_arg)
    if '..' in pattern.replace(BACKSLASH, '/').split('/'):
        return 'invalid_pattern', None
    spelled = expand_braces(pattern)
    if spelled is None:
        return 'pattern_too_broad', None
    return None, (real_root, root_prefix, [caret_to_bang(p) for p in spelled])


try:
    problem, plan = prepare()
except FileNotFoundError:
    problem, plan = 'path_not_found', None
except NotADirectoryError:
    problem, plan = 'not_a_directory', None
except PermissionError:
    problem, plan = 'permission_denied', None
except Exception as exc:
    # Anything else would be a traceback the host cannot parse; keep a bounded message.
    problem, plan = 'internal_error: ' + type(exc).__name__ + ': ' + str(exc)[:200], None
if problem is None:
    report(*walk(*plan))
else:
    print(json.dumps({{'error': problem}}))
" 2>&1"#;
