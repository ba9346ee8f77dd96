//! Capture at source for `BaseSandbox.execute_with_offload`, and the two commands of
//! `BaseSandbox.delete`.
//!
//! The capture wrapper is a POSIX sh script around the user's command that saves its
//! combined output to a file in the sandbox. It prints one meta line,
//! `<sentinel> <exit_code> <offloaded> <capped> <surplus_lines>`, then either the whole
//! output (small) or a preview of it (large; the file stays for `read_file`). A preview is
//! the head and tail around a truncation marker when the output has more lines than the two
//! excerpts hold, else a leading byte excerpt closed by a clip notice; byte caps that cut
//! either shape are owned up to in-band.

use super::sandbox_search::shlex_quote;
use crate::middleware::filesystem::texts::TRUNCATION_MARKER_TEMPLATE;
use crate::tools::invocation_error::str_repr;

/// First word of the wrapper's meta line.
pub const SENTINEL: &str = "__DEEPAGENTS_EXEC_META__";
/// Words on the meta line, the sentinel included.
pub const META_FIELDS: usize = 5;
pub const HEAD_LINES: u64 = 5;
pub const TAIL_LINES: u64 = 5;
pub const HEAD_BYTES: u64 = 2000;
pub const TAIL_BYTES: u64 = 2000;
/// Default cap on the output saved in the sandbox; the rest is drained unsaved and flagged.
/// Well above any inline budget, so large output is still kept whole; it only bounds
/// runaway output.
pub const MAX_BYTES: u64 = 10 * 1024 * 1024;

// deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_CLIP_NOTICE): appended to a
// byte-excerpt preview shorter than the captured output.
pub const CLIP_NOTICE: &str =
    "... [output clipped here; {captured_bytes} bytes total, full output at the path above] ...";
// deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED): the clip
// notice once capture hit its byte cap (the count is the cap; the saved file is cut too).
pub const CLIP_NOTICE_CAPPED: &str = "... [output clipped here; capture stopped at its {captured_bytes}-byte limit, so the file at the path above is also incomplete] ...";
// deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE): before
// the marker of a head/tail preview whose excerpts were cut by their byte caps.
pub const EXCERPT_CLIP_NOTICE: &str = "... [the excerpts above and below are byte-capped, so the lines bordering this marker may be cut mid-line] ...";

/// The wrapper after the command. The command runs in a subshell (its `exit` cannot end
/// the wrapper) through eval (so the backend's shell and environment apply), read from a
/// quoted heredoc (no quoting to get wrong). Its output is piped through head -c, then
/// drained by cat: the file never outgrows the cap, yet the command is not killed by
/// SIGPIPE, and its own status goes to a side file since $? after a pipeline belongs to
/// the pipeline.
const EPILOGUE: &str = r#"
@DELIM@
)
{ ( eval "$_dars_cmd" ); echo "$?" > "$_dars_rc_file"; } 2>&1 | { head -c @CAP@ > "$_dars_out"; cat > /dev/null; }
_dars_rc=$(cat "$_dars_rc_file" 2>/dev/null)
rm -f "$_dars_rc_file"
: "${_dars_rc:=1}"
_dars_size=$(wc -c < "$_dars_out" 2>/dev/null | tr -d ' ')
: "${_dars_size:=0}"
if [ "$_dars_size" -le @BUDGET@ ]; then
  @META@ 0 0 0
  cat "$_dars_out"
  rm -f "$_dars_out"
else
  _dars_full=0
  [ "$_dars_size" -ge @CAP@ ] && _dars_full=1
  _dars_lines=$(wc -l < "$_dars_out" 2>/dev/null | tr -d ' ')
  _dars_surplus=$((${_dars_lines:-0} - @LINES@))
  @META@ 1 "$_dars_full" "$_dars_surplus"
  if [ "$_dars_surplus" -le 0 ]; then
    # Too few lines to drop a middle: a leading byte excerpt, with a notice when it leaves
    # something out. Once capped, the size is the cap and the saved file is cut as well.
    head -c @EXCERPT@ "$_dars_out"
    if [ "$_dars_size" -gt @EXCERPT@ ]; then
      if [ "$_dars_full" -eq 1 ]; then
        printf '\n@CAPPED_NOTICE@\n' "$_dars_size"
      else
        printf '\n@NOTICE@\n' "$_dars_size"
      fi
    fi
  else
    # The byte caps apply before the line caps, so long lines can cut the outer excerpt
    # lines mid-line while the marker only counts whole dropped lines: say so. The notice's
    # leading newline also keeps the marker off a head excerpt with no final newline.
    _dars_head=$(head -n @HEAD_N@ "$_dars_out" 2>/dev/null | wc -c | tr -d ' ')
    _dars_tail=$(tail -n @TAIL_N@ "$_dars_out" 2>/dev/null | wc -c | tr -d ' ')
    head -c @HEAD_C@ "$_dars_out" | head -n @HEAD_N@
    if [ "${_dars_head:-0}" -gt @HEAD_C@ ] || [ "${_dars_tail:-0}" -gt @TAIL_C@ ]; then
      printf '\n@EXCERPT_NOTICE@\n'
    fi
    printf '@MARKER@\n' "$_dars_surplus"
    tail -c @TAIL_C@ "$_dars_out" | tail -n @TAIL_N@
  fi
fi
"#;

/// 80 random bits as 16 RFC 4648 base32 letters (`A-Z2-7`), as deepagents names its
/// heredoc terminators and edit temp files (`base64.b32encode(os.urandom(10))`).
pub fn random_b32() -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    // A v4 UUID's bytes 6 and 8 carry its version and variant bits; the other 14 are random.
    let uuid = uuid::Uuid::new_v4();
    let b = uuid.as_bytes();
    let bits = [
        b[0], b[1], b[2], b[3], b[4], b[5], b[9], b[10], b[11], b[12],
    ]
    .iter()
    .fold(0u128, |acc, &byte| (acc << 8) | u128::from(byte));
    (0..16)
        .map(|i| char::from(ALPHABET[((bits >> (75 - 5 * i)) & 31) as usize]))
        .collect()
}

/// A heredoc terminator that cannot occur in `command` (80 random bits, redrawn if it does).
fn heredoc_delimiter(command: &str) -> String {
    loop {
        let delimiter = format!("__DEEPAGENTS_CMD_{}__", random_b32());
        if !command.contains(&delimiter) {
            return delimiter;
        }
    }
}

/// `notice` as a printf format whose one `%s` takes the number it reports.
fn printf_format(notice: &str) -> String {
    notice.replace("{captured_bytes}", "%s")
}

/// The wrapper script around `command`. Output up to `inline_budget` bytes comes back
/// whole; past `max_capture_bytes` (default `MAX_BYTES`) it is no longer saved and the
/// result says so.
pub fn capture_cmd(
    command: &str,
    capture_path: &str,
    inline_budget: i64,
    max_capture_bytes: Option<i64>,
) -> String {
    let cap = max_capture_bytes.map_or_else(|| MAX_BYTES.to_string(), |c| c.to_string());
    let delimiter = heredoc_delimiter(command);
    let meta = format!("printf '%s %s %s %s %s\\n' '{SENTINEL}' \"$_dars_rc\"");
    let prologue = format!(
        "# deepagents-rs capture wrapper: run the command below, keep its output in a sandbox file,
# print it whole when small or a preview of it when large.
# Opt out with BaseSandbox.enable_capture_offload = False.
_dars_out={}
_dars_rc_file=\"$_dars_out.ec\"
mkdir -p \"$(dirname \"$_dars_out\")\" 2>/dev/null
_dars_cmd=$(cat <<'{delimiter}'
",
        shlex_quote(capture_path)
    );
    // Substituted last to first so no value can be taken for a later placeholder; the
    // command is joined, not substituted, so nothing in it is read as part of the wrapper.
    let epilogue = EPILOGUE
        .replace(
            "@MARKER@",
            &TRUNCATION_MARKER_TEMPLATE.replace("{omitted_lines}", "%s"),
        )
        .replace("@EXCERPT_NOTICE@", EXCERPT_CLIP_NOTICE)
        .replace("@CAPPED_NOTICE@", &printf_format(CLIP_NOTICE_CAPPED))
        .replace("@NOTICE@", &printf_format(CLIP_NOTICE))
        .replace("@EXCERPT@", &(HEAD_BYTES + TAIL_BYTES).to_string())
        .replace("@LINES@", &(HEAD_LINES + TAIL_LINES).to_string())
        .replace("@HEAD_N@", &HEAD_LINES.to_string())
        .replace("@TAIL_N@", &TAIL_LINES.to_string())
        .replace("@HEAD_C@", &HEAD_BYTES.to_string())
        .replace("@TAIL_C@", &TAIL_BYTES.to_string())
        .replace("@BUDGET@", &inline_budget.to_string())
        .replace("@CAP@", &cap)
        .replace("@META@", &meta)
        .replace("@DELIM@", &delimiter);
    format!("{prologue}{command}{epilogue}")
}

/// The wrapper's reply read: the command's output or its preview, and the meta line's flags.
#[derive(Debug, PartialEq)]
pub struct Captured {
    pub output: String,
    pub exit_code: i64,
    pub offloaded: bool,
    pub capped: bool,
    pub preview_has_marker: bool,
}

/// Splits the meta line from the body. `Err` (with the warning to log) when the output has
/// no well-formed meta line: the wrapper was off or the transport cut it, and the output is
/// to be returned as it is, since a preview may then pass for the whole output. `Ok` with a
/// warning when only the surplus is unreadable (it costs the marker flag alone).
pub fn parse_capture(output: &str) -> Result<(Captured, Option<String>), String> {
    let (first, body) = output.split_once('\n').unwrap_or((output, ""));
    // Checked before splitting: without the wrapper the first line can be a huge one-liner.
    if !first.starts_with(SENTINEL) {
        return Err("Capture wrapper meta line absent or malformed (no sentinel); returning output unoffloaded".to_owned());
    }
    let words: Vec<&str> = first.split(' ').collect();
    let [
        sentinel,
        exit_word,
        offloaded_word,
        capped_word,
        surplus_word,
    ] = words[..]
    else {
        return Err(format!(
            "Capture wrapper meta line absent or malformed ({} fields, expected {META_FIELDS}); returning output unoffloaded",
            words.len()
        ));
    };
    if sentinel != SENTINEL {
        return Err(format!(
            "Capture wrapper meta line absent or malformed ({} fields, expected {META_FIELDS}); returning output unoffloaded",
            words.len()
        ));
    }
    let Some(exit_code) = py_int(exit_word) else {
        return Err(format!(
            "Capture wrapper emitted a non-integer exit code {}; returning output unoffloaded",
            str_repr(&prefix(exit_word))
        ));
    };
    let (surplus, warning) = match py_int(surplus_word) {
        Some(s) => (s, None),
        None => (
            0,
            Some(format!(
                "Capture wrapper emitted a non-integer preview line surplus {}; assuming no truncation marker",
                str_repr(&prefix(surplus_word))
            )),
        ),
    };
    let offloaded = offloaded_word == "1";
    Ok((
        Captured {
            output: body.to_owned(),
            exit_code,
            offloaded,
            capped: capped_word == "1",
            // A marker only exists on an offloaded preview.
            preview_has_marker: offloaded && surplus > 0,
        },
        warning,
    ))
}

/// The first 50 characters, as the warnings show a bad word.
fn prefix(word: &str) -> String {
    word.chars().take(50).collect()
}

/// Python's `int()` on one meta word: surrounding whitespace, an optional sign, ASCII digits
/// with single `_` between them (the shell prints plain decimals; anything else is a broken
/// reply).
fn py_int(word: &str) -> Option<i64> {
    let word = crate::middleware::py_text::py_strip(word);
    let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !well_formed {
        return None;
    }
    word.replace('_', "").parse().ok()
}

/// `BaseSandbox.delete`'s probe: succeeds when the path exists or is a dangling symlink.
/// Quoting makes the path one literal argument; it confines nothing.
pub fn delete_probe_cmd(path: &str) -> String {
    let quoted = shlex_quote(path);
    format!("test -e {quoted} || test -L {quoted}")
}

/// `BaseSandbox.delete`'s removal of the file or folder with everything in it.
pub fn delete_cmd(path: &str) -> String {
    format!("rm -rf {}", shlex_quote(path))
}

/// The error for a probe that said absent: a failing probe cannot tell "absent" from
/// "cannot stat", and an unknown status (`None`) does not count as absent.
pub fn delete_probe_error(path: &str, probe_exit: Option<i64>) -> Option<String> {
    probe_exit
        .is_some_and(|code| code != 0)
        .then(|| format!("Error: '{path}' not found"))
}

/// The error for a removal that did not exit 0 (it may have failed halfway).
pub fn delete_error(path: &str, exit_code: Option<i64>, output: &str) -> Option<String> {
    if exit_code == Some(0) {
        return None;
    }
    let shown = crate::middleware::py_text::py_strip(output);
    let shown = if shown.is_empty() {
        "unknown error"
    } else {
        shown
    };
    Some(format!("Error deleting file '{path}': {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_line_is_read() {
        let (c, w) = parse_capture("__DEEPAGENTS_EXEC_META__ 3 1 0 14\nhead\ntail").unwrap();
        assert_eq!(w, None);
        assert_eq!(c.exit_code, 3);
        assert!(c.offloaded && !c.capped && c.preview_has_marker);
        assert_eq!(c.output, "head\ntail");
        assert!(parse_capture("plain output").is_err());
        assert!(parse_capture("__DEEPAGENTS_EXEC_META__ x 0 0 0\n").is_err());
        let (c, w) = parse_capture("__DEEPAGENTS_EXEC_META__ 0 1 1 y\n").unwrap();
        assert!(w.is_some() && !c.preview_has_marker && c.capped);
    }

    #[test]
    fn python_int_words() {
        assert_eq!(py_int("+12"), Some(12));
        assert_eq!(py_int("1_000"), Some(1000));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int("_1"), None);
        assert_eq!(py_int(" 7\r"), Some(7));
        assert_eq!(py_int(""), None);
    }

    #[test]
    fn delete_commands_quote_the_path() {
        assert_eq!(delete_probe_cmd("/a b"), "test -e '/a b' || test -L '/a b'");
        assert_eq!(delete_cmd("/x"), "rm -rf /x");
        assert_eq!(delete_probe_error("/x", None), None);
        assert_eq!(
            delete_error("/x", Some(1), "  \n"),
            Some("Error deleting file '/x': unknown error".into())
        );
    }
}
