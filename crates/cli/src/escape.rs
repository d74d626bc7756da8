//! Nothing iolab prints can drive the terminal: job names, option values, imported fio JSON
//! and error messages echo what a user or a file gave, and an escape sequence in them
//! (`\x1b[2J` clears the screen) would run in the reader's terminal. Every byte of standard
//! output and standard error passes through [`Escaping`], which writes C0 controls (but tab
//! and newline), DEL and the C1 controls (U+0080..U+009F, which some terminals obey as
//! 8-bit escapes) as visible `\xNN`. JSON is untouched by it: serde already writes those
//! characters as `\u001b`.

use std::io::{self, Write};

/// A writer that escapes control characters; `keep_cr` lets `\r` through (stderr's
/// progress line rewrites itself with it).
pub struct Escaping<W: Write> {
    inner: W,
    keep_cr: bool,
    /// A 0xC2 byte that ended the last write: the start of a two-byte character that may be
    /// a C1 control.
    pending_c2: bool,
}

impl<W: Write> Escaping<W> {
    pub fn new(inner: W, keep_cr: bool) -> Escaping<W> {
        Escaping {
            inner,
            keep_cr,
            pending_c2: false,
        }
    }

    fn plain(&self, b: u8) -> bool {
        !(b < 0x20 || b == 0x7f) || b == b'\n' || b == b'\t' || (self.keep_cr && b == b'\r')
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::with_capacity(buf.len());
        let mut i = 0;
        if self.pending_c2 {
            self.pending_c2 = false;
            match buf.first() {
                Some(&b @ 0x80..=0x9f) => {
                    out.extend_from_slice(format!("\\u{{{b:02x}}}").as_bytes());
                    i = 1;
                }
                _ => out.push(0xc2),
            }
        }
        while i < buf.len() {
            let b = buf[i];
            if b == 0xc2 {
                match buf.get(i + 1) {
                    None => {
                        self.pending_c2 = true;
                        i += 1;
                        continue;
                    }
                    Some(&c @ 0x80..=0x9f) => {
                        out.extend_from_slice(format!("\\u{{{c:02x}}}").as_bytes());
                        i += 2;
                        continue;
                    }
                    Some(_) => {}
                }
            }
            if self.plain(b) {
                out.push(b);
            } else {
                out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
            }
            i += 1;
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.pending_c2 {
            self.pending_c2 = false;
            self.inner.write_all(&[0xc2])?;
        }
        self.inner.flush()
    }
}

/// Standard output, escaped.
pub fn stdout() -> Escaping<io::StdoutLock<'static>> {
    Escaping::new(io::stdout().lock(), false)
}

/// `s` with its control characters escaped (for the tests).
#[cfg(test)]
pub fn escaped(s: &str) -> String {
    let mut w = Escaping::new(Vec::new(), false);
    let _ = w.write_all(s.as_bytes());
    let _ = w.flush();
    String::from_utf8_lossy(&w.inner).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(escaped("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(escaped("tab\tline\n"), "tab\tline\n");
        assert_eq!(escaped("bell\x07 del\x7f"), "bell\\x07 del\\x7f");
        assert_eq!(escaped("csi\u{9b}2J é"), "csi\\u{9b}2J é");
        assert_eq!(escaped("cr\r"), "cr\\x0d");
        // A C1 control split across two writes is still caught.
        let mut w = Escaping::new(Vec::new(), true);
        w.write_all(b"x\xc2").unwrap();
        w.write_all(b"\x9by\r").unwrap();
        w.flush().unwrap();
        assert_eq!(String::from_utf8(w.inner).unwrap(), "x\\u{9b}y\r");
    }
}
