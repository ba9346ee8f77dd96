//! The MIME type the `filetype` package (1.2.0) guesses from a payload's first bytes, which
//! LangChain's Google GenAI reader gives a raw-base64 `image_url` part. The guess decides
//! the extension deepagents' media offload stores the part under (through
//! `mimetypes.guess_extension`) and whether its reference is an image, audio or video block
//! or a `<file>` text, so every kind `filetype` knows is here, in its order: images, audio,
//! video, fonts, documents, archives, applications. The first match wins, as in
//! `filetype.guess`; kinds that share a MIME type keep their own rows so the order stays
//! the package's.

/// Bytes at fixed places: the buffer holds at least `min` bytes and, at each offset, one of
/// the listed byte strings.
struct Layout {
    min: usize,
    at: &'static [(usize, &'static [&'static [u8]])],
}

/// How one kind is recognised: one of several fixed layouts, or a check that reads the
/// structure (chunks, boxes, ZIP entries, frames).
enum Test {
    Any(&'static [Layout]),
    Check(fn(&[u8]) -> bool),
}
use Test::{Any, Check};

/// The ODF and OOXML ZIP entry names LangChain's documents are recognised by.
const WORD: &[u8] = b"word/";
const SHEET: &[u8] = b"xl/";
const SLIDES: &[u8] = b"ppt/";
const OLE: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// `filetype.types.TYPES`, in order: the MIME type and how it is recognised.
const KINDS: &[(&str, Test)] = &[
    // image
    (
        "image/vnd.dwg",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"AC10"])],
        }]),
    ),
    (
        "image/x-xcf",
        Any(&[Layout {
            min: 10,
            at: &[(0, &[b"gimp xcf v"])],
        }]),
    ),
    (
        "image/jpeg",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"\xFF\xD8\xFF"])],
        }]),
    ),
    (
        "image/jpx",
        Any(&[Layout {
            min: 51,
            at: &[(0, &[b"\0\0\0\x0C"]), (16, &[b"ftypjp2 "])],
        }]),
    ),
    ("image/apng", Check(is_apng)),
    (
        "image/png",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"\x89PNG"])],
        }]),
    ),
    (
        "image/gif",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"GIF"])],
        }]),
    ),
    (
        "image/webp",
        Any(&[Layout {
            min: 14,
            at: &[(0, &[b"RIFF"]), (8, &[b"WEBPVP"])],
        }]),
    ),
    ("image/tiff", Check(is_tiff)),
    (
        "image/x-canon-cr2",
        Any(&[Layout {
            min: 10,
            at: &[(0, TIFF_ORDERS), (8, &[b"CR"])],
        }]),
    ),
    (
        "image/bmp",
        Any(&[Layout {
            min: 2,
            at: &[(0, &[b"BM"])],
        }]),
    ),
    (
        "image/vnd.ms-photo",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"II\xBC"])],
        }]),
    ),
    (
        "image/vnd.adobe.photoshop",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"8BPS"])],
        }]),
    ),
    (
        "image/x-icon",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"\0\0\x01\0"])],
        }]),
    ),
    ("image/heic", Check(|b| is_heif_of(b, "heic"))),
    (
        "application/dicom",
        Any(&[Layout {
            min: 133,
            at: &[(128, &[b"DICM"])],
        }]),
    ),
    ("image/avif", Check(|b| is_heif_of(b, "avif"))),
    // audio
    (
        "audio/aac",
        Any(&[Layout {
            min: 2,
            at: &[(0, &[b"\xFF\xF1", b"\xFF\xF9"])],
        }]),
    ),
    (
        "audio/midi",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"MThd"])],
        }]),
    ),
    (
        "audio/mpeg",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"ID3", b"\xFF\xF2", b"\xFF\xF3", b"\xFF\xFB"])],
        }]),
    ),
    (
        "audio/mp4",
        Any(&[
            Layout {
                min: 11,
                at: &[(4, &[b"ftypM4A"])],
            },
            Layout {
                min: 11,
                at: &[(0, &[b"M4A "])],
            },
        ]),
    ),
    (
        "audio/ogg",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"OggS"])],
        }]),
    ),
    (
        "audio/x-flac",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"fLaC"])],
        }]),
    ),
    (
        "audio/x-wav",
        Any(&[Layout {
            min: 12,
            at: &[(0, &[b"RIFF"]), (8, &[b"WAVE"])],
        }]),
    ),
    (
        "audio/amr",
        Any(&[Layout {
            min: 12,
            at: &[(0, &[b"#!AMR\n"])],
        }]),
    ),
    (
        "audio/x-aiff",
        Any(&[Layout {
            min: 12,
            at: &[(0, &[b"FORM"]), (8, &[b"AIFF"])],
        }]),
    ),
    // video
    (
        "video/3gpp",
        Any(&[Layout {
            min: 7,
            at: &[(0, &[b"ftyp3gp"])],
        }]),
    ),
    ("video/mp4", Check(is_mp4)),
    (
        "video/x-m4v",
        Any(&[Layout {
            min: 11,
            at: &[(0, &[b"\0\0\0\x1CftypM4V"])],
        }]),
    ),
    (
        "video/x-matroska",
        Check(|b| is_ebml_of(b, b"\x42\x82\x88matroska")),
    ),
    (
        "video/quicktime",
        Check(|b| ftyp(b).is_some_and(|(major, _)| major == "qt  ")),
    ),
    (
        "video/x-msvideo",
        Any(&[Layout {
            min: 12,
            at: &[(0, &[b"RIFF"]), (8, &[b"AVI "])],
        }]),
    ),
    (
        "video/x-ms-wmv",
        Any(&[Layout {
            min: 10,
            at: &[(0, &[b"\x30\x26\xB2\x75\x8E\x66\xCF\x11\xA6\xD9"])],
        }]),
    ),
    (
        "video/mpeg",
        Check(|b| b.len() > 3 && b[..3] == *b"\0\0\x01" && (0xB0..=0xBF).contains(&b[3])),
    ),
    ("video/webm", Check(|b| is_ebml_of(b, b"\x42\x82\x84webm"))),
    (
        "video/x-flv",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"FLV\x01"])],
        }]),
    ),
    // font
    (
        "application/font-woff",
        Any(&[Layout {
            min: 8,
            at: &[(0, &[b"wOFF"]), (4, WOFF_FLAVOURS)],
        }]),
    ),
    (
        "application/font-woff",
        Any(&[Layout {
            min: 8,
            at: &[(0, &[b"wOF2"]), (4, WOFF_FLAVOURS)],
        }]),
    ),
    (
        "application/font-sfnt",
        Any(&[Layout {
            min: 5,
            at: &[(0, &[b"\0\x01\0\0\0"])],
        }]),
    ),
    (
        "application/font-sfnt",
        Any(&[Layout {
            min: 5,
            at: &[(0, &[b"OTTO\0"])],
        }]),
    ),
    // document
    ("application/msword", Check(is_doc)),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        Check(|b| is_ooxml(b, WORD)),
    ),
    (
        "application/vnd.oasis.opendocument.text",
        Check(|b| is_odf(b, b"application/vnd.oasis.opendocument.text")),
    ),
    ("application/vnd.ms-excel", Check(is_xls)),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        Check(|b| is_ooxml(b, SHEET)),
    ),
    (
        "application/vnd.oasis.opendocument.spreadsheet",
        Check(|b| is_odf(b, b"application/vnd.oasis.opendocument.spreadsheet")),
    ),
    ("application/vnd.ms-powerpoint", Check(is_ppt)),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        Check(|b| is_ooxml(b, SLIDES)),
    ),
    (
        "application/vnd.oasis.opendocument.presentation",
        Check(|b| is_odf(b, b"application/vnd.oasis.opendocument.presentation")),
    ),
    // archive (`filetype`'s second DICOM row compares three bytes with four and never
    // matches, so it is left out)
    (
        "application/x-brotli",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"\xCE\xB2\xCF\x81"])],
        }]),
    ),
    (
        "application/x-rpm",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"\xED\xAB\xEE\xDB"])],
        }]),
    ),
    (
        "application/epub+zip",
        Any(&[Layout {
            min: 58,
            at: &[
                (0, &[b"PK\x03\x04"]),
                (30, &[b"mimetypeapplication/epub+zip"]),
            ],
        }]),
    ),
    (
        "application/zip",
        Any(&[Layout {
            min: 4,
            at: &[
                (0, &[b"PK"]),
                (2, &[b"\x03", b"\x05", b"\x07"]),
                (3, &[b"\x04", b"\x06", b"\x08"]),
            ],
        }]),
    ),
    (
        "application/x-tar",
        Any(&[Layout {
            min: 262,
            at: &[(257, &[b"ustar"])],
        }]),
    ),
    (
        "application/x-rar-compressed",
        Any(&[Layout {
            min: 7,
            at: &[(0, &[b"Rar!\x1A\x07"]), (6, &[b"\0", b"\x01"])],
        }]),
    ),
    (
        "application/gzip",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"\x1F\x8B\x08"])],
        }]),
    ),
    (
        "application/x-bzip2",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"BZh"])],
        }]),
    ),
    (
        "application/x-7z-compressed",
        Any(&[Layout {
            min: 6,
            at: &[(0, &[b"7z\xBC\xAF\x27\x1C"])],
        }]),
    ),
    (
        "application/pdf",
        // A UTF-8 byte order mark before `%PDF` is skipped.
        Any(&[
            Layout {
                min: 4,
                at: &[(0, &[b"%PDF"])],
            },
            Layout {
                min: 7,
                at: &[(0, &[b"\xEF\xBB\xBF"]), (3, &[b"%PDF"])],
            },
        ]),
    ),
    (
        "application/x-msdownload",
        Any(&[Layout {
            min: 2,
            at: &[(0, &[b"MZ"])],
        }]),
    ),
    (
        "application/x-shockwave-flash",
        Any(&[Layout {
            min: 3,
            at: &[(0, &[b"C", b"F"]), (1, &[b"WS"])],
        }]),
    ),
    (
        "application/rtf",
        Any(&[Layout {
            min: 5,
            at: &[(0, &[b"{\\rtf"])],
        }]),
    ),
    (
        "application/x-nintendo-nes-rom",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"NES\x1A"])],
        }]),
    ),
    (
        "application/x-google-chrome-extension",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"Cr24"])],
        }]),
    ),
    (
        "application/vnd.ms-cab-compressed",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"MSCF", b"ISc("])],
        }]),
    ),
    (
        "application/octet-stream",
        Any(&[Layout {
            min: 36,
            at: &[
                (34, &[b"LP"]),
                (8, &[b"\x02\0\x01", b"\x01\0\0", b"\x02\0\x02"]),
            ],
        }]),
    ),
    (
        "application/postscript",
        Any(&[Layout {
            min: 2,
            at: &[(0, &[b"%!"])],
        }]),
    ),
    (
        "application/x-xz",
        Any(&[Layout {
            min: 6,
            at: &[(0, &[b"\xFD7zXZ\0"])],
        }]),
    ),
    (
        "application/x-sqlite3",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"SQLi"])],
        }]),
    ),
    (
        "application/x-deb",
        Any(&[Layout {
            min: 21,
            at: &[(0, &[b"!<arch>\ndebian-binary"])],
        }]),
    ),
    (
        "application/x-unix-archive",
        Any(&[Layout {
            min: 7,
            at: &[(0, &[b"!<arch>"])],
        }]),
    ),
    (
        "application/x-compress",
        Any(&[Layout {
            min: 2,
            at: &[(0, &[b"\x1F\xA0", b"\x1F\x9D"])],
        }]),
    ),
    (
        "application/x-lzop",
        Any(&[Layout {
            min: 8,
            at: &[(0, &[b"\x89LZO\0\r\n\x1A"])],
        }]),
    ),
    (
        "application/x-lzip",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"LZIP"])],
        }]),
    ),
    (
        "application/x-executable",
        Any(&[Layout {
            min: 53,
            at: &[(0, &[b"\x7FELF"])],
        }]),
    ),
    (
        "application/x-lz4",
        Any(&[Layout {
            min: 4,
            at: &[(0, &[b"\x04\x22\x4D\x18"])],
        }]),
    ),
    ("application/zstd", Check(is_zstd)),
    // application
    (
        "application/wasm",
        Any(&[Layout {
            min: 8,
            at: &[(0, &[b"\0asm\x01\0\0\0"])],
        }]),
    ),
];

const TIFF_ORDERS: &[&[u8]] = &[b"II*\0", b"MM\0*"];
const WOFF_FLAVOURS: &[&[u8]] = &[b"\0\x01\0\0", b"OTTO", b"true"];

/// `filetype.guess(raw).mime`: `None` for empty bytes or no known kind. Only the first
/// 8192 bytes are read.
pub(super) fn guess_mime(raw: &[u8]) -> Option<&'static str> {
    let buf = &raw[..raw.len().min(8192)];
    if buf.is_empty() {
        return None;
    }
    KINDS
        .iter()
        .find(|(_, test)| test.matches(buf))
        .map(|(mime, _)| *mime)
}

impl Test {
    fn matches(&self, buf: &[u8]) -> bool {
        match self {
            Any(layouts) => layouts.iter().any(|l| l.matches(buf)),
            Check(check) => check(buf),
        }
    }
}

impl Layout {
    fn matches(&self, buf: &[u8]) -> bool {
        buf.len() >= self.min
            && self
                .at
                .iter()
                .all(|(offset, options)| options.iter().any(|o| has(buf, *offset, o)))
    }
}

/// `bytes` at `offset` of `buf`.
fn has(buf: &[u8], offset: usize, bytes: &[u8]) -> bool {
    offset
        .checked_add(bytes.len())
        .and_then(|end| buf.get(offset..end))
        == Some(bytes)
}

/// `needle` anywhere in `buf[start:end]` (bounds clamped as a Python slice).
fn contains(buf: &[u8], start: usize, end: usize, needle: &[u8]) -> bool {
    let hay = buf.get(start..end.min(buf.len())).unwrap_or_default();
    hay.windows(needle.len()).any(|w| w == needle)
}

/// An animation-control chunk before the first image data (or the end) of a PNG.
fn is_apng(buf: &[u8]) -> bool {
    if buf.len() <= 8 || !has(buf, 0, b"\x89PNG\r\n\x1a\n") {
        return false;
    }
    let mut i = 8usize;
    while buf.len() > i {
        let length = buf[i..buf.len().min(i + 4)].iter().fold(0usize, |n, b| {
            n.saturating_mul(256).saturating_add(*b as usize)
        });
        match buf.get(i + 4..buf.len().min(i + 8)).unwrap_or_default() {
            b"IDAT" | b"IEND" => return false,
            b"acTL" => return true,
            _ => i = i.saturating_add(12).saturating_add(length),
        }
    }
    false
}

/// A TIFF byte-order header not followed by Canon's `CR` (a CR2 raw).
fn is_tiff(buf: &[u8]) -> bool {
    buf.len() > 9 && TIFF_ORDERS.iter().any(|o| has(buf, 0, o)) && !has(buf, 8, b"CR")
}

/// Bytes as `bytes.decode(errors="ignore")` reads them: invalid UTF-8 left out.
fn utf8_ignoring(bytes: &[u8]) -> String {
    bytes.utf8_chunks().map(|c| c.valid()).collect()
}

/// An ISO base media `ftyp` box at the start, wholly inside `buf`: its major brand and
/// compatible brands (the last may be short when the buffer ends).
fn ftyp(buf: &[u8]) -> Option<(String, Vec<String>)> {
    if buf.len() < 16 || !has(buf, 4, b"ftyp") {
        return None;
    }
    let size = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]) as usize;
    if buf.len() < size {
        return None;
    }
    let brands = (16..size)
        .step_by(4)
        .map(|i| utf8_ignoring(&buf[i..buf.len().min(i + 4)]))
        .collect();
    Some((utf8_ignoring(&buf[8..12]), brands))
}

/// HEIF of a given brand: that major brand, or a generic HEIF one listing it.
fn is_heif_of(buf: &[u8], brand: &str) -> bool {
    ftyp(buf).is_some_and(|(major, brands)| {
        major == brand
            || (matches!(major.as_str(), "mif1" | "msf1") && brands.iter().any(|b| b == brand))
    })
}

fn is_mp4(buf: &[u8]) -> bool {
    let mp4 = |b: &str| matches!(b, "mp41" | "mp42" | "isom");
    ftyp(buf).is_some_and(|(major, brands)| brands.iter().any(|b| mp4(b)) || mp4(&major))
}

/// An EBML header with the given document type element anywhere in the buffer.
fn is_ebml_of(buf: &[u8], doctype: &[u8]) -> bool {
    has(buf, 0, b"\x1A\x45\xDF\xA3") && contains(buf, 0, buf.len(), doctype)
}

fn is_doc(buf: &[u8]) -> bool {
    buf.len() > 515
        && has(buf, 0, OLE)
        && (has(buf, 512, b"\xEC\xA5\xC1\0")
            || (buf.len() > 2142
                && contains(
                    buf,
                    2075,
                    2142,
                    b"\0\n\0\0\0MSWordDoc\0\x10\0\0\0Word.Document.8\0\xF49\xB2q",
                )))
}

fn is_xls(buf: &[u8]) -> bool {
    buf.len() > 520
        && has(buf, 0, OLE)
        && ((has(buf, 512, b"\xFD\xFF\xFF\xFF") && matches!(buf[518], 0 | 2))
            || has(buf, 512, b"\x09\x08\x10\0\0\x06\x05\0")
            || (buf.len() > 2095
                && contains(buf, 1568, 2095, b"\xE2\0\0\0\x5C\0\x70\0\x04\0\0Calc")))
}

fn is_ppt(buf: &[u8]) -> bool {
    buf.len() > 524
        && has(buf, 0, OLE)
        && ([b"\xA0\x46\x1D\xF0", b"\0\x6E\x1E\xF0", b"\x0F\0\xE8\x03"]
            .iter()
            .any(|s| has(buf, 512, *s))
            || (has(buf, 512, b"\xFD\xFF\xFF\xFF") && has(buf, 522, b"\0\0"))
            || (buf.len() > 2096 && has(buf, 2072, b"\0\xB9\x29\xE8\x11\0\0\0MS PowerPoint 97")))
}

const ZIP_ENTRY: &[u8] = b"PK\x03\x04";

/// The offset of the next ZIP local header in the 6000 bytes from `start`.
fn next_entry(buf: &[u8], start: usize) -> Option<usize> {
    let end = start.saturating_add(6000).min(buf.len());
    let hay = buf.get(start..end)?;
    hay.windows(ZIP_ENTRY.len())
        .position(|w| w == ZIP_ENTRY)
        .map(|i| start + i)
}

/// An OpenDocument: a ZIP whose first entry is `mimetype` holding this MIME type.
fn is_odf(buf: &[u8], mime: &[u8]) -> bool {
    has(buf, 0, ZIP_ENTRY) && has(buf, 0x1E, b"mimetype") && has(buf, 0x26, mime)
}

/// An Office Open XML document whose part folder is `folder`: the first ZIP entry is in
/// it, or the first entry is package metadata and one of the next four entries is in it.
fn is_ooxml(buf: &[u8], folder: &[u8]) -> bool {
    if !has(buf, 0, ZIP_ENTRY) {
        return false;
    }
    let folders = [WORD, SLIDES, SHEET];
    if folders.iter().any(|f| has(buf, 0x1E, f)) {
        return has(buf, 0x1E, folder);
    }
    if ![&b"[Content_Types].xml"[..], b"_rels/.rels", b"docProps"]
        .iter()
        .any(|n| has(buf, 0x1E, n))
    {
        return false;
    }
    let mut at = 0usize;
    for _ in 0..4 {
        match next_entry(buf, at + 4) {
            Some(next) if has(buf, next + 30, folder) => return true,
            Some(next) => at = next,
            None => return false,
        }
    }
    false
}

/// A Zstandard frame, possibly after skippable frames.
fn is_zstd(mut buf: &[u8]) -> bool {
    loop {
        if buf.len() > 3 && (0x22..=0x28).contains(&buf[0]) && has(buf, 1, b"\xB5\x2F\xFD") {
            return true;
        }
        if buf.len() < 8 {
            return false;
        }
        let le = |i: usize| u32::from_le_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
        if le(0) & 0xFFFF_FFF0 != 0x184D_2A50 {
            return false;
        }
        let skip = 8usize.saturating_add(le(4) as usize);
        if buf.len() < skip {
            return false;
        }
        buf = &buf[skip..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_in_filetype_order() {
        assert_eq!(guess_mime(b""), None);
        assert_eq!(guess_mime(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        let apng = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR0123456789abcCRC!\0\0\0\x08acTL";
        assert_eq!(guess_mime(apng), Some("image/apng"));
        assert_eq!(guess_mime(b"BM"), Some("image/bmp"));
        assert_eq!(guess_mime(b"II*\0\0\0\0\0CR"), Some("image/x-canon-cr2"));
        assert_eq!(guess_mime(b"II*\0\0\0\0\0XX"), Some("image/tiff"));
        assert_eq!(guess_mime(b"ID3\x03"), Some("audio/mpeg"));
        assert_eq!(guess_mime(b"\xEF\xBB\xBF%PDF"), Some("application/pdf"));
        assert_eq!(guess_mime(b"\xEF\xBB\xBF%PD"), None);
        assert_eq!(guess_mime(b"no known signature"), None);
    }

    #[test]
    fn iso_boxes_and_frames() {
        let mut mp4 = b"\0\0\0\x18ftypM4V \0\0\0\0isomavc1".to_vec();
        assert_eq!(guess_mime(&mp4), Some("video/mp4"));
        mp4[3] = 0xFF; // the box is longer than the buffer
        assert_eq!(guess_mime(&mp4), None);
        let heic = b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic";
        assert_eq!(guess_mime(heic), Some("image/heic"));
        let skipped = b"\x50\x2A\x4D\x18\x02\0\0\0ab\x28\xB5\x2F\xFD";
        assert_eq!(guess_mime(skipped), Some("application/zstd"));
        assert!(!is_zstd(b"\x50\x2A\x4D\x18\x09\0\0\0ab"));
    }

    #[test]
    fn office_documents_by_their_entries() {
        let mut docx = b"PK\x03\x04".to_vec();
        docx.resize(0x1E, 0);
        docx.extend_from_slice(b"[Content_Types].xml");
        docx.extend_from_slice(b"PK\x03\x04");
        docx.resize(docx.len() + 26, 0);
        docx.extend_from_slice(b"xl/workbook.xml");
        assert_eq!(
            guess_mime(&docx),
            Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        );
        let mut odt = b"PK\x03\x04".to_vec();
        odt.resize(0x1E, 0);
        odt.extend_from_slice(b"mimetypeapplication/vnd.oasis.opendocument.text");
        assert_eq!(
            guess_mime(&odt),
            Some("application/vnd.oasis.opendocument.text")
        );
    }
}
