//! Parsing `--rule` and `--area-color`.

use walkmask::{AreaColor, ColorChannel, DecodeRule};

/// A `--rule` as written on the command line; `colors` gets its table from
/// `--area-color` afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleArg {
    /// A complete rule.
    Rule(DecodeRule),
    /// `colors`: the table comes from `--area-color`.
    Colors,
    /// `exact-colors`: the table comes from `--area-color`, and a colour it does
    /// not list is an error.
    ExactColors,
}

/// Reads `luma`, `alpha`, `indexed`, `channel:r|g|b|a:THRESHOLD`, `colors` or
/// `exact-colors`.
pub fn parse_rule(s: &str) -> Result<RuleArg, String> {
    let lower = s.trim().to_ascii_lowercase();
    match lower.as_str() {
        "luma" => return Ok(RuleArg::Rule(DecodeRule::Luma)),
        "alpha" => return Ok(RuleArg::Rule(DecodeRule::Alpha)),
        "indexed" => return Ok(RuleArg::Rule(DecodeRule::Indexed)),
        "colors" | "colours" => return Ok(RuleArg::Colors),
        "exact-colors" | "exact-colours" => return Ok(RuleArg::ExactColors),
        _ => {}
    }
    let Some(rest) = lower.strip_prefix("channel:") else {
        return Err(format!(
            "unknown rule `{s}`: expected luma, alpha, indexed, channel:r|g|b|a:THRESHOLD, colors or exact-colors"
        ));
    };
    let (channel, threshold) = rest.split_once(':').ok_or_else(|| {
        format!(
            "rule `{s}` needs a threshold: channel:r|g|b|a:THRESHOLD, for example channel:b:128"
        )
    })?;
    let channel = match channel {
        "r" | "red" => ColorChannel::Red,
        "g" | "green" => ColorChannel::Green,
        "b" | "blue" => ColorChannel::Blue,
        "a" | "alpha" => ColorChannel::Alpha,
        other => {
            return Err(format!(
                "unknown channel `{other}` in `{s}`: expected r, g, b or a"
            ));
        }
    };
    let threshold = threshold
        .parse::<u8>()
        .map_err(|_| format!("threshold `{threshold}` in `{s}` is not a whole number 0..=255"))?;
    Ok(RuleArg::Rule(DecodeRule::Channel { channel, threshold }))
}

/// Reads `ID=#RRGGBB` (the `#` is optional; ID 0 makes that colour blocked).
pub fn parse_area_color(s: &str) -> Result<AreaColor, String> {
    let (id, color) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not ID=#RRGGBB, for example 2=#00ff00"))?;
    let area = id
        .trim()
        .parse::<u8>()
        .map_err(|_| format!("area id `{id}` in `{s}` is not a whole number 0..=255"))?;
    let hex = color.trim();
    let hex = hex.strip_prefix('#').unwrap_or(hex);
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("colour `{color}` in `{s}` is not #RRGGBB"));
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).expect("checked hex digits");
    Ok(AreaColor {
        rgb: [byte(0), byte(2), byte(4)],
        area,
    })
}

/// Combines `--rule` and `--area-color` into one decoding rule.
///
/// `--area-color` without `--rule` means `colors`; `colors` and `exact-colors` need
/// at least one `--area-color`, and `--area-color` with any other rule is a mistake.
pub fn resolve_rule(rule: Option<&RuleArg>, colors: &[AreaColor]) -> Result<DecodeRule, String> {
    match rule {
        None if colors.is_empty() => Ok(DecodeRule::default()),
        None | Some(RuleArg::Colors) => {
            if colors.is_empty() {
                Err("--rule colors needs at least one --area-color ID=#RRGGBB".to_string())
            } else {
                Ok(DecodeRule::Colors(colors.to_vec()))
            }
        }
        Some(RuleArg::ExactColors) => {
            if colors.is_empty() {
                Err("--rule exact-colors needs at least one --area-color ID=#RRGGBB".to_string())
            } else {
                Ok(DecodeRule::ExactColors(colors.to_vec()))
            }
        }
        Some(RuleArg::Rule(r)) => {
            if colors.is_empty() {
                Ok(r.clone())
            } else {
                Err("--area-color only applies to --rule colors or exact-colors".to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(parse_rule("luma").unwrap(), RuleArg::Rule(DecodeRule::Luma));
        assert_eq!(
            parse_rule("Alpha").unwrap(),
            RuleArg::Rule(DecodeRule::Alpha)
        );
        assert_eq!(
            parse_rule("indexed").unwrap(),
            RuleArg::Rule(DecodeRule::Indexed)
        );
        assert_eq!(parse_rule("colors").unwrap(), RuleArg::Colors);
        assert_eq!(
            parse_rule("channel:b:128").unwrap(),
            RuleArg::Rule(DecodeRule::Channel {
                channel: ColorChannel::Blue,
                threshold: 128
            })
        );
        assert_eq!(
            parse_rule("channel:a:1").unwrap(),
            RuleArg::Rule(DecodeRule::Channel {
                channel: ColorChannel::Alpha,
                threshold: 1
            })
        );
        for bad in [
            "",
            "lumaa",
            "channel",
            "channel:b",
            "channel:x:1",
            "channel:r:256",
            "channel:r:-1",
        ] {
            assert!(parse_rule(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn area_colors() {
        assert_eq!(
            parse_area_color("2=#00ff80").unwrap(),
            AreaColor {
                rgb: [0, 255, 128],
                area: 2
            }
        );
        assert_eq!(parse_area_color("0=FFFFFF").unwrap().rgb, [255, 255, 255]);
        for bad in [
            "2",
            "2=#00ff8",
            "256=#000000",
            "x=#000000",
            "1=#gg0000",
            "1=#ééé",
        ] {
            assert!(parse_area_color(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolving() {
        let c = parse_area_color("1=#ffffff").unwrap();
        assert_eq!(resolve_rule(None, &[]).unwrap(), DecodeRule::Luma);
        assert_eq!(
            resolve_rule(None, &[c]).unwrap(),
            DecodeRule::Colors(vec![c])
        );
        assert_eq!(
            resolve_rule(Some(&RuleArg::Colors), &[c]).unwrap(),
            DecodeRule::Colors(vec![c])
        );
        assert!(resolve_rule(Some(&RuleArg::Colors), &[]).is_err());
        assert_eq!(parse_rule("exact-colors").unwrap(), RuleArg::ExactColors);
        assert_eq!(
            resolve_rule(Some(&RuleArg::ExactColors), &[c]).unwrap(),
            DecodeRule::ExactColors(vec![c])
        );
        assert!(resolve_rule(Some(&RuleArg::ExactColors), &[]).is_err());
        assert!(resolve_rule(Some(&RuleArg::Rule(DecodeRule::Alpha)), &[c]).is_err());
    }
}
