//! Bytes that are not UTF-8, told as Python's UTF-8 decoder tells them: the same span and
//! reason, so a decoding failure reads the same from the core as from Python.

/// The bad span (`start..end`) and the decoder's reason for `e` in `bytes`.
pub fn failure(bytes: &[u8], e: std::str::Utf8Error) -> (usize, usize, &'static str) {
    let start = e.valid_up_to();
    match e.error_len() {
        None => (start, bytes.len(), "unexpected end of data"),
        Some(len) if (0xC2..=0xF4).contains(&bytes[start]) => {
            (start, start + len, "invalid continuation byte")
        }
        Some(len) => (start, start + len, "invalid start byte"),
    }
}

/// `bytes.decode("utf-8")`, failing with `UnicodeDecodeError`'s message.
pub fn decode(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let (start, end, reason) = failure(bytes, e.utf8_error());
        if end == start + 1 {
            format!(
                "'utf-8' codec can't decode byte 0x{:02x} in position {start}: {reason}",
                bytes[start]
            )
        } else {
            format!(
                "'utf-8' codec can't decode bytes in position {start}-{}: {reason}",
                end - 1
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn reads_as_python_reports() {
        assert_eq!(decode(b"ok".to_vec()).unwrap(), "ok");
        assert_eq!(
            decode(vec![b'a', 0xff]).unwrap_err(),
            "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"
        );
        assert_eq!(
            decode(vec![0xe2, 0x82]).unwrap_err(),
            "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"
        );
        assert_eq!(
            decode(vec![0xe2, 0x82, b'a']).unwrap_err(),
            "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"
        );
        assert_eq!(
            decode(vec![0xc3, b'a']).unwrap_err(),
            "'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte"
        );
    }
}
