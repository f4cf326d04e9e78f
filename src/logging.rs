//! Log output with every line bounded: a log line may carry what a server sent (a header, an
//! error body, a URL), and a hostile server must not be able to fill the terminal or a log file
//! with one line. [`BoundedLines`] wraps the writer of the `tracing` subscriber and cuts each
//! event at [`MAX_LOG_LINE_BYTES`] (at a character boundary), marking the cut. URLs in log
//! lines are also cut on their own ([`crate::crawl::url::for_log`]).

use std::io::Write;
use tracing_subscriber::fmt::MakeWriter;

/// The most bytes of one log event (one line) written.
pub const MAX_LOG_LINE_BYTES: usize = 4096;

/// What ends a cut line.
const CUT_MARK: &[u8] = b" [log line cut]\n";

/// A `MakeWriter` whose writers cut each event at [`MAX_LOG_LINE_BYTES`].
#[derive(Debug, Clone, Copy)]
pub struct BoundedLines<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for BoundedLines<M> {
    type Writer = BoundedLine<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        BoundedLine { inner: self.0.make_writer(), written: 0, cut: false }
    }
}

/// The writer of one event: passes on its first [`MAX_LOG_LINE_BYTES`] bytes, then the cut mark.
pub struct BoundedLine<W> {
    inner: W,
    written: usize,
    cut: bool,
}

impl<W: Write> Write for BoundedLine<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = MAX_LOG_LINE_BYTES.saturating_sub(self.written);
        if buf.len() <= room {
            self.inner.write_all(buf)?;
        } else if !self.cut {
            let mut keep = room;
            while keep > 0 && buf[keep] & 0xC0 == 0x80 {
                keep -= 1;
            }
            self.inner.write_all(&buf[..keep])?;
            self.inner.write_all(CUT_MARK)?;
            self.cut = true;
        }
        self.written = self.written.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `line` cut to at most [`MAX_LOG_LINE_BYTES`] bytes (at a character boundary, the cut
/// marked): for a message printed outside `tracing` that may carry what a server or an input
/// file sent ([`warn_line!`](crate::warn_line)).
pub fn bounded(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= MAX_LOG_LINE_BYTES {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut keep = MAX_LOG_LINE_BYTES;
    while !line.is_char_boundary(keep) {
        keep -= 1;
    }
    std::borrow::Cow::Owned(format!("{} [log line cut]", &line[..keep]))
}

/// `eprintln!` with the line cut at [`MAX_LOG_LINE_BYTES`] ([`bounded`]): every message a crawl
/// or an input file can make long goes through it.
#[macro_export]
macro_rules! warn_line {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::logging::bounded(&format!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A message printed outside `tracing` is cut the same way, at a character boundary.
    #[test]
    fn a_long_message_is_cut_at_a_character_boundary() {
        assert_eq!(bounded("short"), "short");
        let long = "é".repeat(MAX_LOG_LINE_BYTES);
        let cut = bounded(&long);
        assert!(cut.len() <= MAX_LOG_LINE_BYTES + 20 && cut.ends_with("[log line cut]"), "{}", cut.len());
        assert!(cut.starts_with("éé"));
    }

    /// A short event passes whole; a long one (a hostile header value, multi-byte text) is cut
    /// at a character boundary within the bound and marked, whatever the number of writes.
    #[test]
    fn every_event_is_cut_at_the_bound() {
        let sink = Sink::default();
        let make = BoundedLines({
            let sink = sink.clone();
            move || sink.clone()
        });
        make.make_writer().write_all(b"WARN short line\n").unwrap();
        assert_eq!(sink.0.lock().unwrap().as_slice(), b"WARN short line\n");
        sink.0.lock().unwrap().clear();
        let mut w = make.make_writer();
        w.write_all(b"WARN header: ").unwrap();
        for _ in 0..10_000 {
            w.write_all("é".as_bytes()).unwrap();
        }
        w.write_all(b"\n").unwrap();
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).expect("cut at a character boundary");
        assert!(out.len() <= MAX_LOG_LINE_BYTES + CUT_MARK.len(), "{}", out.len());
        assert!(out.starts_with("WARN header: é") && out.ends_with(" [log line cut]\n"), "{out}");
    }
}
