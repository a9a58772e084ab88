//! Lines of an input with a bound on each. `BufRead::lines` holds a line
//! however long it is, so a file of one endless line (or a stream without
//! newlines) would fill memory; the offline commands read their input
//! through [`bounded_lines`] instead. Hand-written: a dozen lines over
//! `fill_buf`, which no line-reading crate offers with a skip.

use std::io::{BufRead, Error, ErrorKind, Read};

/// The most bytes a line of an offline command's input may hold: an
/// article with its text fits many times over.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The lines of `reader` without their `\n` (or `\r\n`), as
/// `BufRead::lines` gives them, except that a line longer than `max` bytes
/// is given as an error of kind `InvalidData` (as is one that is not
/// UTF-8) and skipped whole; the lines after it follow.
pub fn bounded_lines<R: BufRead>(reader: R, max: usize) -> BoundedLines<R> {
    BoundedLines {
        reader,
        max,
        failed: false,
        skipping: false,
    }
}

pub struct BoundedLines<R> {
    reader: R,
    max: usize,
    /// An I/O error ends the lines.
    failed: bool,
    /// The rest of a line too long is skipped when the next line is asked
    /// for, so a caller that stops at the error does not wait for its end.
    skipping: bool,
}

impl<R: BufRead> BoundedLines<R> {
    /// Consumes the rest of the current line, newline included.
    fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    self.reader.consume(at + 1);
                    return Ok(());
                }
                None => {
                    let n = buf.len();
                    self.reader.consume(n);
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = std::io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if std::mem::take(&mut self.skipping) {
            if let Err(e) = self.skip_line() {
                self.failed = true;
                return Some(Err(e));
            }
        }
        let mut line = Vec::new();
        let read =
            Read::take(self.reader.by_ref(), self.max as u64 + 1).read_until(b'\n', &mut line);
        match read {
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
            Ok(0) => return None,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        } else if line.len() > self.max {
            self.skipping = true;
            return Some(Err(Error::new(
                ErrorKind::InvalidData,
                format!("a line longer than {} bytes", self.max),
            )));
        }
        Some(
            String::from_utf8(line)
                .map_err(|_| Error::new(ErrorKind::InvalidData, "a line that is not UTF-8")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8], max: usize) -> Vec<Result<String, String>> {
        // A small buffer, so lines cross its refills.
        let reader = std::io::BufReader::with_capacity(4, input);
        bounded_lines(reader, max)
            .map(|l| l.map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn lines_come_as_buf_read_gives_them() {
        let got = read(b"one\r\ntwo\n\nthree", 10);
        assert_eq!(
            got,
            vec![
                Ok("one".into()),
                Ok("two".into()),
                Ok("".into()),
                Ok("three".into())
            ]
        );
    }

    #[test]
    fn a_line_too_long_is_skipped_and_the_next_follows() {
        let got = read(b"short\nmuch too long a line\nnext\xff\nlast\n", 10);
        assert_eq!(got[0], Ok("short".into()));
        assert!(got[1]
            .as_ref()
            .unwrap_err()
            .contains("longer than 10 bytes"));
        assert!(got[2].as_ref().unwrap_err().contains("not UTF-8"));
        assert_eq!(got[3], Ok("last".into()));
        assert_eq!(got.len(), 4);
        // A line of exactly the bound is a line; one without end is not.
        assert_eq!(read(b"0123456789\n", 10), vec![Ok("0123456789".into())]);
        assert_eq!(read(&[b'x'; 100], 10).len(), 1);
    }

    #[test]
    fn a_line_without_end_is_an_error_at_once() {
        // Skipping its rest waits for the next line to be asked for, so a
        // caller that stops at the error is not held reading forever.
        let endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let first = bounded_lines(endless, 1 << 10).next().unwrap();
        assert!(first
            .unwrap_err()
            .to_string()
            .contains("longer than 1024 bytes"));
    }
}
