//! Reading query and scenario files line by line, in bounded memory.

use std::io::{self, BufRead, Read};
use std::path::Path;

/// The longest query line read; longer lines are answered with an error object.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// A query or scenario file read line by line.
pub type Input = io::BufReader<Box<dyn Read>>;

/// Opens a query or scenario file (`-` is standard input) to be read line by line.
pub fn open_input(path: &Path) -> Result<Input, String> {
    let source: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(
            std::fs::File::open(path)
                .map_err(|e| format!("could not read {}: {e}", path.display()))?,
        )
    };
    Ok(io::BufReader::with_capacity(1 << 16, source))
}

/// Whether reading the next line may wait for input (no whole line is buffered):
/// answers written so far are flushed first, so a program feeding queries through a
/// pipe gets each answer as soon as it is computed.
pub fn may_block(input: &Input) -> bool {
    !input.buffer().contains(&b'\n')
}

/// Reads the next line into `buf` (without its line end; a UTF-8 byte-order mark
/// before the first line is dropped). `Ok(None)` at the end of the input;
/// `Ok(Some(Err(message)))` for a line that is too long or not UTF-8 text. Memory
/// stays within [`MAX_LINE_BYTES`] whatever the input.
pub fn next_line<'a>(
    input: &mut Input,
    n: usize,
    buf: &'a mut Vec<u8>,
) -> io::Result<Option<Result<&'a str, String>>> {
    buf.clear();
    let read = input
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buf)?;
    if read == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE_BYTES {
        input.skip_until(b'\n')?;
        return Ok(Some(Err(format!(
            "the line is longer than {MAX_LINE_BYTES} bytes"
        ))));
    }
    let mut line = &buf[..];
    if n == 1 {
        line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    }
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Ok(Some(std::str::from_utf8(line).map_err(|e| {
        format!("not UTF-8 text (byte {} of the line)", e.valid_up_to() + 1)
    })))
}
