//! Hand-made image files: PNG chunks with valid checksums, stored zlib streams.

/// CRC-32 (ISO-HDLC), as PNG chunks use.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

pub fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    out
}

/// A zlib stream holding `data` in one stored (uncompressed) block.
pub fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01, 0x01];
    let len = data.len() as u16;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    // Adler-32 of the data.
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

/// The bytes of a PNG: the signature, `IHDR` for `width x height` at `depth` bits
/// of colour type `color`, the `extra` chunks, one `IDAT` chunk holding `scanlines`
/// (filter bytes included) in a stored zlib stream, and `IEND`.
pub fn png_file(
    width: u32,
    height: u32,
    depth: u8,
    color: u8,
    extra: &[(&[u8; 4], &[u8])],
    scanlines: &[u8],
) -> Vec<u8> {
    let mut out = vec![137, 80, 78, 71, 13, 10, 26, 10];
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[depth, color, 0, 0, 0]);
    out.extend(chunk(b"IHDR", &ihdr));
    for (kind, data) in extra {
        out.extend(chunk(kind, data));
    }
    out.extend(chunk(b"IDAT", &zlib_stored(scanlines)));
    out.extend(chunk(b"IEND", &[]));
    out
}

/// A 1 x 1 palette PNG (8-bit indices) whose PLTE chunk holds `palette` bytes and
/// whose one pixel is `index`.
pub fn palette_png_with_plte(palette: &[u8], index: u8) -> Vec<u8> {
    png_file(1, 1, 8, 3, &[(b"PLTE", palette)], &[0, index])
}
