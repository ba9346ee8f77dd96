//! A request body as the pieces it is made of, sent one after another with an exact
//! `Content-Length`: a long conversation's turns are kept as written (see
//! `anthropic::kept_turns`) and go out as they are kept, not copied into one buffer first
//! (at 2,000 messages that copy was most of a step's own instructions: ~0.6 MB a step).

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

/// The body's pieces, in order. Cloning shares them; each attempt sends the same bytes.
#[derive(Clone, Debug, Default)]
pub struct Payload {
    pieces: Vec<Bytes>,
    len: u64,
}

impl Payload {
    pub fn new(pieces: Vec<Bytes>) -> Self {
        let pieces: Vec<Bytes> = pieces.into_iter().filter(|p| !p.is_empty()).collect();
        let len = pieces.iter().map(|p| p.len() as u64).sum();
        Payload { pieces, len }
    }

    /// The body as one buffer (what the tests and benches compare).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len as usize);
        for p in &self.pieces {
            out.extend_from_slice(p);
        }
        out
    }

    /// The pieces as they are sent.
    #[cfg(test)]
    pub(crate) fn pieces(&self) -> &[Bytes] {
        &self.pieces
    }

    /// The body of one attempt. A body of one piece is handed over as it is (reqwest can
    /// then replay it itself).
    pub(crate) fn body(&self) -> reqwest::Body {
        match self.pieces.as_slice() {
            [] => reqwest::Body::from(Bytes::new()),
            [one] => reqwest::Body::from(one.clone()),
            _ => reqwest::Body::wrap(Pieces {
                rest: self.pieces.iter().cloned().collect(),
                len: self.len,
            }),
        }
    }
}

impl From<Bytes> for Payload {
    fn from(bytes: Bytes) -> Self {
        Payload::new(vec![bytes])
    }
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Self {
        Payload::from(Bytes::from(bytes))
    }
}

/// The pieces left to send. Its size is exact, so hyper sends a `Content-Length` (not a
/// chunked body) and writes the pieces with vectored writes, without copying them.
struct Pieces {
    rest: VecDeque<Bytes>,
    len: u64,
}

impl http_body::Body for Pieces {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let next = self.rest.pop_front();
        if let Some(piece) = &next {
            self.len -= piece.len() as u64;
        }
        Poll::Ready(next.map(|p| Ok(http_body::Frame::data(p))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_is_its_pieces_in_order_with_their_exact_length() {
        let payload = Payload::new(vec![
            Bytes::from_static(b"{\"a\":"),
            Bytes::new(),
            Bytes::from_static(b"[1,2]"),
            Bytes::from_static(b"}"),
        ]);
        assert_eq!(payload.to_vec(), b"{\"a\":[1,2]}");
        let body = payload.body();
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(11));
    }
}
