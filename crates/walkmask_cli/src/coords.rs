//! Parsing points and query lines.
//!
//! An integer token names a pixel and stands for its centre (`12` -> `12.5`); a token
//! with a decimal point or an exponent is a coordinate as given (`12.0` -> `12.0`).
//! Each coordinate of a pair is read on its own, so `12,7.25` is `(12.5, 7.25)`.

use walkmask::Point;

/// Reads one coordinate token: integers are pixel indices (their centre), decimals
/// are taken as given. `nan` and `inf` parse (queries reject them later with an
/// error object).
pub fn parse_coord(token: &str) -> Result<f32, String> {
    let t = token.trim();
    if t.is_empty() {
        return Err("empty coordinate".to_string());
    }
    if let Ok(i) = t.parse::<i64>() {
        return Ok(i as f32 + 0.5);
    }
    t.parse::<f32>()
        .map_err(|_| format!("`{t}` is not a number"))
}

/// Reads `X,Y` (as given to `--from` and `--to`).
pub fn parse_point(s: &str) -> Result<Point, String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}` is not a point: expected X,Y such as 12,7 or 12.5,7.25"))?;
    let x = parse_coord(x).map_err(|e| format!("bad point `{s}`: {e}"))?;
    let y = parse_coord(y).map_err(|e| format!("bad point `{s}`: {e}"))?;
    Ok(Point::new(x, y))
}

/// One line of a `--queries` file: `sx sy gx gy` separated by spaces, tabs or commas.
pub fn parse_query_line(line: &str) -> Result<(Point, Point), String> {
    let tokens: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() != 4 {
        return Err(format!(
            "expected 4 numbers `sx sy gx gy`, found {} in `{}`",
            tokens.len(),
            line.trim()
        ));
    }
    let mut v = [0f32; 4];
    for (slot, t) in v.iter_mut().zip(&tokens) {
        *slot = parse_coord(t)?;
    }
    Ok((Point::new(v[0], v[1]), Point::new(v[2], v[3])))
}

/// One query of a Moving AI `.scen` file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenQuery {
    /// Width the scenario was made for.
    pub width: u32,
    /// Height the scenario was made for.
    pub height: u32,
    /// Start point.
    pub start: Point,
    /// Goal point.
    pub goal: Point,
    /// The optimal octile length given by the file.
    pub optimal: f64,
}

/// One line of a `.scen` file: `bucket map width height sx sy gx gy optimal`.
pub fn parse_scen_line(line: &str) -> Result<ScenQuery, String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() != 9 {
        return Err(format!(
            "expected 9 fields `bucket map width height sx sy gx gy optimal`, found {}",
            tokens.len()
        ));
    }
    let dim = |t: &str| {
        t.parse::<u32>()
            .map_err(|_| format!("map size `{t}` is not a whole number"))
    };
    let optimal = tokens[8]
        .parse::<f64>()
        .map_err(|_| format!("optimal length `{}` is not a number", tokens[8]))?;
    Ok(ScenQuery {
        width: dim(tokens[2])?,
        height: dim(tokens[3])?,
        start: Point::new(parse_coord(tokens[4])?, parse_coord(tokens[5])?),
        goal: Point::new(parse_coord(tokens[6])?, parse_coord(tokens[7])?),
        optimal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_pixel_centres_and_decimals_are_points() {
        assert_eq!(parse_point("12,7").unwrap(), Point::new(12.5, 7.5));
        assert_eq!(parse_point("12.0,7.25").unwrap(), Point::new(12.0, 7.25));
        assert_eq!(parse_point(" 3 , 4.5 ").unwrap(), Point::new(3.5, 4.5));
        assert_eq!(parse_point("-1,0").unwrap(), Point::new(-0.5, 0.5));
        assert!(parse_point("nan,1").unwrap().x.is_nan());
        assert!(parse_point("12").is_err());
        assert!(parse_point("a,1").is_err());
        assert!(parse_point("1,").is_err());
    }

    #[test]
    fn query_lines() {
        assert_eq!(
            parse_query_line("1 2\t3,4.5").unwrap(),
            (Point::new(1.5, 2.5), Point::new(3.5, 4.5))
        );
        assert!(parse_query_line("1 2 3").is_err());
        assert!(parse_query_line("1 2 3 x").is_err());
    }

    #[test]
    fn scen_lines() {
        let q = parse_scen_line("0\tmaps/dao/arena.map\t49\t49\t1\t11\t1\t12\t1").unwrap();
        assert_eq!((q.width, q.height), (49, 49));
        assert_eq!(q.start, Point::new(1.5, 11.5));
        assert_eq!(q.goal, Point::new(1.5, 12.5));
        assert_eq!(q.optimal, 1.0);
        assert!(parse_scen_line("0 a.map 49 49 1 11 1 12").is_err());
        assert!(parse_scen_line("0 a.map 49 x 1 11 1 12 1").is_err());
    }
}
