//! Decoding images and Moving AI maps into walk masks.

use crate::mask::{DecodeRule, MaskError, MaskLimits, WalkMask};

pub(crate) fn decode(
    _bytes: &[u8],
    _rule: &DecodeRule,
    _limits: &MaskLimits,
) -> Result<WalkMask, MaskError> {
    todo!("decode")
}

pub(crate) fn parse_movingai(_text: &str, _limits: &MaskLimits) -> Result<WalkMask, MaskError> {
    todo!("movingai")
}
