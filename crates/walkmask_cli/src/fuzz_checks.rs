//! The check the `batch_line` fuzz target runs on each input (`fuzz/fuzz_targets`),
//! shared with the test that replays its kept corpus.

use std::io::{BufReader, Cursor, Read};

use crate::coords::{parse_query_line, parse_scen_line};
use crate::lines::{Input, MAX_LINE_BYTES, next_line};

/// Feeds `data` to the batch reader as a whole input: every line is read within the
/// line limit, the lines are exactly the input's `\n`-separated pieces, and both
/// line parsers take every line without panicking.
pub fn check_batch_input(data: &[u8]) {
    let source: Box<dyn Read> = Box::new(Cursor::new(data.to_vec()));
    // A small buffer, so that lines cross buffer boundaries.
    let mut input: Input = BufReader::with_capacity(7, source);
    let mut buf = Vec::new();
    let mut n = 0;
    let pieces = data.split_inclusive(|&b| b == b'\n').count();
    while let Some(line) = next_line(&mut input, n + 1, &mut buf).expect("reading memory") {
        n += 1;
        if let Ok(line) = line {
            assert!(line.len() <= MAX_LINE_BYTES);
            assert!(!line.contains('\n'));
            if let Ok((start, goal)) = parse_query_line(line) {
                let _ = (start.x + goal.y, start.y + goal.x);
            }
            let _ = parse_scen_line(line);
        }
        assert!(n <= pieces, "more lines than the input has");
    }
    assert_eq!(n, pieces, "every line is read once");
}

/// The corpus replay the core's tests use.
#[cfg(test)]
#[path = "../../walkmask/tests/support/corpus.rs"]
mod corpus;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_line_corpus() {
        corpus::replay("batch_line", check_batch_input);
    }
}
