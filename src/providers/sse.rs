//! Server-sent events, as the providers stream them: `event:` and `data:` lines, an event
//! per blank line. Bytes arrive in arbitrary pieces (a line, or a UTF-8 character, may be
//! split across them), so the parser buffers until a line is whole.

/// One event: its type (`event:`, empty when absent) and its data lines joined by `\n`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

#[derive(Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(event) = self.line(&String::from_utf8_lossy(&line)) {
                out.push(event);
            }
        }
        out
    }

    /// The event left when the stream ends without a final blank line.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buffer.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.buffer)).into_owned();
            if let Some(event) = self.line(rest.trim_end_matches('\r')) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None; // a comment (keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.current.event = value.to_owned(),
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // id, retry: nothing the providers' streams need
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if !self.has_data && self.current.event.is_empty() {
            return None;
        }
        self.has_data = false;
        Some(std::mem::take(&mut self.current))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let text = "event: message_start\ndata: {\"a\":\"é\"}\n\n: ping\r\nevent: x\r\ndata: 1\r\ndata: 2\r\n\r\n";
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let mut p = SseParser::default();
            let mut events = p.feed(&bytes[..cut]);
            events.extend(p.feed(&bytes[cut..]));
            events.extend(p.finish());
            assert_eq!(
                events,
                vec![
                    SseEvent {
                        event: "message_start".into(),
                        data: "{\"a\":\"é\"}".into()
                    },
                    SseEvent {
                        event: "x".into(),
                        data: "1\n2".into()
                    },
                ],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_last_event_without_blank_line_is_kept() {
        let mut p = SseParser::default();
        assert!(p.feed(b"event: end\ndata: {}").is_empty());
        assert_eq!(p.finish().map(|e| e.event), Some("end".into()));
    }
}
