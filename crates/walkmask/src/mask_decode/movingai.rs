//! Moving AI benchmark maps (`.map` files).

use crate::mask::{MaskError, MaskLimits, WalkMask, check_size};

/// The terrain characters of the format: `.`, `G` and `S` are passable, `@`, `O`,
/// `T` and `W` are not.
const TERRAIN: &[u8] = b".GS@OTW";

fn movingai_error(line: usize, message: impl Into<String>) -> MaskError {
    MaskError::MovingAi {
        line,
        message: message.into(),
    }
}

/// Parses `type <kind>`, `height H`, `width W` (in any order, each once, the sizes
/// in decimal digits), `map`, then `H` rows of `W` terrain characters. Lines may end
/// in LF, CRLF or CR alone, may carry trailing spaces or tabs, and blank lines may
/// follow the last row. Any other character in a row is an error naming it.
pub(crate) fn parse_movingai(text: &str, limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .split_inclusive(['\n', '\r'])
        .scan(false, |after_cr, line| {
            // "\r\n" arrives as "\r" then "\n": the "\n" ends no line of its own.
            let skip = *after_cr && line == "\n";
            *after_cr = line.ends_with('\r');
            Some((!skip).then_some(line))
        })
        .flatten()
        .map(|l| {
            l.trim_end_matches(['\n', '\r'])
                .trim_end_matches([' ', '\t'])
        })
        .enumerate()
        .map(|(i, l)| (i + 1, l));
    let mut last_line = 0;

    let (mut kind, mut height, mut width) = (None, None, None);
    let map_line = loop {
        let Some((n, line)) = lines.next() else {
            return Err(movingai_error(
                last_line + 1,
                "the header ends without a `map` line",
            ));
        };
        last_line = n;
        let mut words = line.split_whitespace();
        let Some(key) = words.next() else {
            return Err(movingai_error(n, "blank line in the header"));
        };
        if key == "map" {
            if words.next().is_some() {
                return Err(movingai_error(n, "unexpected text after `map`"));
            }
            break n;
        }
        let Some(value) = words.next() else {
            return Err(movingai_error(n, format!("`{key}` has no value")));
        };
        if words.next().is_some() {
            return Err(movingai_error(
                n,
                format!("unexpected text after `{key} {value}`"),
            ));
        }
        let number = || {
            let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
            digits
                .then(|| value.parse::<u32>().ok())
                .flatten()
                .ok_or(())
                .map_err(|()| movingai_error(n, format!("{key} `{value}` is not a whole number")))
        };
        let duplicate = match key {
            "type" => kind.replace(value).is_some(),
            "height" => height.replace(number()?).is_some(),
            "width" => width.replace(number()?).is_some(),
            _ => {
                return Err(movingai_error(
                    n,
                    format!("unknown header line `{line}` (expected type, height, width or map)"),
                ));
            }
        };
        if duplicate {
            return Err(movingai_error(n, format!("`{key}` is given twice")));
        }
    };
    let missing = |what: &str| movingai_error(map_line, format!("the header has no `{what}` line"));
    kind.ok_or_else(|| missing("type"))?;
    let height = height.ok_or_else(|| missing("height"))?;
    let width = width.ok_or_else(|| missing("width"))?;
    check_size(width, height, limits)?;
    let pixels = width as u64 * height as u64;
    if pixels > limits.max_alloc_bytes {
        return Err(MaskError::OverBudget {
            needed: pixels,
            budget: limits.max_alloc_bytes,
        });
    }

    let mut areas = Vec::with_capacity(width as usize * height as usize);
    for row in 0..height {
        let Some((n, line)) = lines.next() else {
            return Err(movingai_error(
                last_line + 1,
                format!("the map has {row} rows, the header says {height}"),
            ));
        };
        last_line = n;
        if !line.is_ascii() {
            return Err(movingai_error(n, "row has a character that is not ASCII"));
        }
        if line.len() != width as usize {
            return Err(movingai_error(
                n,
                format!(
                    "row has {} cells, the header says width {width}",
                    line.len()
                ),
            ));
        }
        if let Some(x) = line.bytes().position(|c| !TERRAIN.contains(&c)) {
            let c = line.as_bytes()[x] as char;
            return Err(movingai_error(
                n,
                format!(
                    "column {}: {c:?} is not a terrain character (one of . G S @ O T W)",
                    x + 1
                ),
            ));
        }
        areas.extend(
            line.bytes()
                .map(|c| u8::from(matches!(c, b'.' | b'G' | b'S'))),
        );
    }
    if let Some((n, _)) = lines.find(|(_, l)| !l.is_empty()) {
        return Err(movingai_error(
            n,
            format!("text after the last row (the header says height {height})"),
        ));
    }
    WalkMask::with_limits(width, height, areas, limits)
}
