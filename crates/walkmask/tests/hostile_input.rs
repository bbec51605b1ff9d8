//! Hostile and corrupt input: files that crashed a decoder, decompression bombs,
//! malformed maps, and files that never end. Each gets a clear error or a documented
//! tolerance, never a panic and never an allocation beyond the budget.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;

use support::files::{palette_png_with_plte, png_file};
use walkmask::{AreaColor, ColorChannel, DecodeRule, MaskError, MaskLimits, WalkMask};

// ---------------------------------------------------------------------------------
// Counting the bytes a decode allocates on this thread
// ---------------------------------------------------------------------------------

struct CountingAllocator;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(size: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + size;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn note_free(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counters
// are thread-local cells that never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_free(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_free(layout.size());
        note_alloc(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `f` and returns its result with the most bytes it had allocated at once on
/// this thread.
fn peak_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get) - base)
}

const MIB: usize = 1 << 20;

fn all_rules() -> Vec<DecodeRule> {
    vec![
        DecodeRule::Luma,
        DecodeRule::Alpha,
        DecodeRule::Channel {
            channel: ColorChannel::Blue,
            threshold: 128,
        },
        DecodeRule::Indexed,
        DecodeRule::Colors(vec![AreaColor {
            rgb: [0, 255, 0],
            area: 1,
        }]),
    ]
}

fn colour_rules() -> Vec<DecodeRule> {
    all_rules()
        .into_iter()
        .filter(|r| *r != DecodeRule::Indexed)
        .collect()
}

// ---------------------------------------------------------------------------------
// Decoder panics
// ---------------------------------------------------------------------------------

#[test]
fn palette_png_with_a_partial_palette_entry_is_an_error_not_a_panic() {
    // A whole palette entry decodes, so the file is otherwise well formed.
    let whole = palette_png_with_plte(&[255, 255, 255], 0);
    assert_eq!(
        WalkMask::decode(&whole, &DecodeRule::Luma).unwrap().areas(),
        [1]
    );
    for len in [1usize, 2, 4, 5, 7, 767, 769, 770] {
        let palette: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let bytes = palette_png_with_plte(&palette, 0);
        for rule in all_rules() {
            let result = std::panic::catch_unwind(|| WalkMask::decode(&bytes, &rule));
            let result = result.unwrap_or_else(|_| panic!("PLTE of {len} bytes, {rule:?}: panic"));
            assert!(
                matches!(&result, Err(MaskError::Corrupt(message)) if message.contains("PLTE")),
                "PLTE of {len} bytes, {rule:?}: {result:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// Decompression bombs and the allocation budget
// ---------------------------------------------------------------------------------

/// A PNG header claiming 8192 x 8192 16-bit RGBA, followed by one empty row.
fn rgba16_bomb() -> Vec<u8> {
    png_file(8192, 8192, 16, 6, &[], &[0])
}

#[test]
fn a_png_header_claiming_a_huge_image_does_not_allocate_the_image() {
    let bytes = rgba16_bomb();
    assert!(bytes.len() < 80, "{} bytes", bytes.len());
    for rule in colour_rules() {
        let (result, peak) = peak_allocation(|| WalkMask::decode(&bytes, &rule));
        assert!(
            matches!(result, Err(MaskError::Image(_))),
            "{rule:?}: {result:?}"
        );
        // The pixels would be 512 MiB; the mask alone is 64 MiB.
        assert!(peak < 80 * MIB, "{rule:?}: {} MiB", peak / MIB);
    }
}

/// A GIF whose screen is `size x size` and whose only frame is one pixel.
fn big_screen_gif(size: u16) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let palette = [0u8, 0, 0, 255, 255, 255];
        let mut encoder = gif::Encoder::new(&mut out, size, size, &palette).unwrap();
        let frame = gif::Frame {
            width: 1,
            height: 1,
            buffer: std::borrow::Cow::Borrowed(&[1]),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame).unwrap();
    }
    out
}

#[test]
fn a_small_gif_with_a_huge_screen_decodes_into_one_byte_per_pixel() {
    let bytes = big_screen_gif(8192);
    assert!(bytes.len() < 100);
    for rule in all_rules() {
        let (mask, peak) = peak_allocation(|| WalkMask::decode(&bytes, &rule).unwrap());
        assert_eq!((mask.width(), mask.height()), (8192, 8192));
        // One byte per pixel for the mask (and its shared copy), not four or more.
        assert!(peak <= 130 * MIB, "{rule:?}: {} MiB", peak / MIB);
        let walkable_at_origin = match &rule {
            DecodeRule::Indexed => 1,
            DecodeRule::Colors(_) => 0,
            _ => 1,
        };
        assert_eq!(mask.area_at(0, 0), Some(walkable_at_origin), "{rule:?}");
        // Outside the frame: blocked, or transparent black for the colour rules.
        assert_eq!(mask.area_at(1, 0), Some(0), "{rule:?}");
    }
}

#[test]
fn a_lowered_allocation_budget_refuses_big_masks_before_allocating() {
    let limits = MaskLimits {
        max_alloc_bytes: 4 * MIB as u64,
        ..MaskLimits::default()
    };
    let gif = big_screen_gif(8192);
    let png = rgba16_bomb();
    let bmp = {
        let mut out = Vec::new();
        image::RgbaImage::new(2048, 2048)
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Bmp)
            .unwrap();
        out
    };
    for (name, bytes) in [("gif", &gif), ("png", &png), ("bmp", &bmp)] {
        for rule in all_rules() {
            if rule == DecodeRule::Indexed && name != "gif" {
                continue; // true-colour images are not indexed
            }
            let (result, peak) =
                peak_allocation(|| WalkMask::decode_with_limits(bytes, &rule, &limits));
            assert!(
                matches!(result, Err(MaskError::OverBudget { budget, needed })
                    if budget == limits.max_alloc_bytes && needed > budget),
                "{name} {rule:?}: {result:?}"
            );
            assert!(peak < 2 * MIB, "{name} {rule:?}: {} KiB", peak / 1024);
        }
    }
    // A small mask fits the same budget.
    let small = png_file(2, 1, 8, 0, &[], &[0, 255, 0]);
    let mask = WalkMask::decode_with_limits(&small, &DecodeRule::Luma, &limits).unwrap();
    assert_eq!(mask.areas(), [1, 0]);
}

// ---------------------------------------------------------------------------------
// Corrupt files: a clear error naming the problem, or a documented tolerance
// ---------------------------------------------------------------------------------

#[test]
fn a_png_cut_inside_its_end_chunk_is_an_error() {
    let whole = png_file(2, 1, 8, 0, &[], &[0, 255, 0]);
    for rule in all_rules() {
        assert!(WalkMask::decode(&whole, &rule).is_ok(), "{rule:?}");
        for cut in 1..12 {
            let result = WalkMask::decode(&whole[..whole.len() - cut], &rule);
            assert!(
                matches!(result, Err(MaskError::Image(_))),
                "cut {cut} {rule:?}: {result:?}"
            );
        }
    }
}

#[test]
fn palette_indices_past_the_palette_are_an_error_under_colour_rules() {
    // Two colours, four pixels using indices 0, 1, 2 and 1.
    let bytes = png_file(
        4,
        1,
        8,
        3,
        &[(b"PLTE", &[0, 0, 0, 255, 255, 255])],
        &[0, 0, 1, 2, 1],
    );
    for rule in colour_rules() {
        let result = WalkMask::decode(&bytes, &rule);
        assert!(
            matches!(&result, Err(MaskError::Corrupt(m))
                if m.contains("pixel (2, 0)") && m.contains("index 2") && m.contains("2 colours")),
            "{rule:?}: {result:?}"
        );
    }
    // The indexed rule reads indices as area ids and never looks up a colour.
    let mask = WalkMask::decode(&bytes, &DecodeRule::Indexed).unwrap();
    assert_eq!(mask.areas(), [0, 1, 2, 1]);
}

/// An 8-bit palette BMP of `width x height` whose pixels are all `index`.
fn palette_bmp(width: u32, height: u32, index: u8) -> Vec<u8> {
    let palette: Vec<[u8; 3]> = (0..=255u8).map(|i| [i, i, i]).collect();
    let mut out = Vec::new();
    image::codecs::bmp::BmpEncoder::new(&mut out)
        .encode_with_palette(
            &vec![index; (width * height) as usize],
            width,
            height,
            image::ExtendedColorType::L8,
            Some(&palette),
        )
        .unwrap();
    out
}

#[test]
fn raw_pixels_flagged_as_run_length_encoded_are_an_error() {
    let mut bytes = palette_bmp(16, 16, 200);
    assert!(WalkMask::decode(&bytes, &DecodeRule::Luma).is_ok());
    // Compression field (offset 30): BI_RLE8.
    bytes[30..34].copy_from_slice(&1u32.to_le_bytes());
    for rule in all_rules() {
        let result = WalkMask::decode(&bytes, &rule);
        assert!(
            matches!(&result, Err(MaskError::Corrupt(m)) if m.contains("RLE8")),
            "{rule:?}: {result:?}"
        );
    }
}

#[test]
fn well_formed_run_length_encoded_bmps_decode() {
    // 4 x 2, RLE8: row 0 is a run of 4 x index 255, row 1 an absolute block of
    // 0, 255, 0 (padded) then a run of 1 x 0, then end of bitmap.
    let mut bytes = palette_bmp(4, 2, 0);
    let data_offset = u32::from_le_bytes(bytes[10..14].try_into().unwrap()) as usize;
    bytes.truncate(data_offset);
    bytes.extend_from_slice(&[4, 255, 0, 0, 0, 3, 0, 255, 0, 0, 1, 0, 0, 1]);
    bytes[30..34].copy_from_slice(&1u32.to_le_bytes());
    let size = bytes.len() as u32;
    bytes[2..6].copy_from_slice(&size.to_le_bytes());
    let mask = WalkMask::decode(&bytes, &DecodeRule::Luma).unwrap();
    // Rows are stored bottom-up.
    assert_eq!(mask.areas(), [0, 1, 0, 0, 1, 1, 1, 1]);
}

#[test]
fn a_zero_height_bmp_is_empty() {
    let mut bytes = palette_bmp(4, 4, 1);
    bytes[22..26].copy_from_slice(&0u32.to_le_bytes());
    for rule in all_rules() {
        let result = WalkMask::decode(&bytes, &rule);
        assert!(
            matches!(
                result,
                Err(MaskError::Empty {
                    width: 4,
                    height: 0
                })
            ),
            "{rule:?}: {result:?}"
        );
    }
}

#[test]
fn map_rows_with_characters_outside_the_format_are_errors() {
    for (row, column, shown) in [
        ("..\0.", 3, "'\\0'"),
        (".\t..", 2, "'\\t'"),
        ("...x", 4, "'x'"),
    ] {
        let text = format!("type octile\nheight 2\nwidth 4\nmap\n....\n{row}\n");
        let result = WalkMask::parse_movingai(&text);
        assert!(
            matches!(&result, Err(MaskError::MovingAi { line: 6, message })
                if message.contains(&format!("column {column}")) && message.contains(shown)),
            "{row:?}: {result:?}"
        );
    }
    let all_terrain = "type octile\nheight 1\nwidth 7\nmap\n.GS@OTW\n";
    let mask = WalkMask::parse_movingai(all_terrain).unwrap();
    assert_eq!(mask.areas(), [1, 1, 1, 0, 0, 0, 0]);
}

#[test]
fn map_sizes_are_plain_decimal_digits() {
    for value in ["+48", "-0", "0x10", "4 8", "٤"] {
        let text = format!("type octile\nheight {value}\nwidth 1\nmap\n.\n");
        let result = WalkMask::parse_movingai(&text);
        assert!(
            matches!(&result, Err(MaskError::MovingAi { line: 2, .. })),
            "{value:?}: {result:?}"
        );
    }
}

#[test]
fn maps_with_any_line_ending_parse_alike() {
    let lf = "type octile\nheight 2\nwidth 3\nmap\n.@.\n..@\n";
    let expected = WalkMask::parse_movingai(lf).unwrap();
    for text in [
        lf.replace('\n', "\r\n"),
        lf.replace('\n', "\r"),
        lf.replace('\n', "\r").trim_end().to_string(),
        // Mixed, with trailing spaces and blank lines after the last row.
        "type octile\r\nheight 2\rwidth 3\nmap\r\n.@.  \r..@\t\n\r\n\n".to_string(),
    ] {
        let mask = WalkMask::parse_movingai(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(mask.areas(), expected.areas(), "{text:?}");
    }
    // A blank line inside the rows is still a missing row.
    let gap = "type octile\rheight 2\rwidth 3\rmap\r.@.\r\r..@\r";
    assert!(WalkMask::parse_movingai(gap).is_err());
}

// ---------------------------------------------------------------------------------
// Files that never end
// ---------------------------------------------------------------------------------

#[test]
fn reading_stops_at_the_allocation_budget() {
    let limits = MaskLimits {
        max_alloc_bytes: MIB as u64,
        ..MaskLimits::default()
    };
    for path in ["/dev/zero", "/dev/zero.map"] {
        // `/dev/zero.map` does not exist: a missing file stays an I/O error.
        let (result, peak) =
            peak_allocation(|| WalkMask::open_with_limits(path, &DecodeRule::Luma, &limits));
        match path {
            "/dev/zero" => assert!(
                matches!(&result, Err(MaskError::FileTooLarge { limit, .. }) if *limit == MIB as u64),
                "{result:?}"
            ),
            _ => assert!(matches!(&result, Err(MaskError::Io { .. })), "{result:?}"),
        }
        assert!(peak < 3 * MIB, "{path}: {} KiB", peak / 1024);
    }
    // A regular file over the limit is refused from its size, before reading.
    let dir = std::env::temp_dir().join(format!("walkmask-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.map");
    std::fs::write(&big, vec![b'.'; 2 * MIB]).unwrap();
    let (result, peak) =
        peak_allocation(|| WalkMask::open_with_limits(&big, &DecodeRule::Luma, &limits));
    assert!(
        matches!(result, Err(MaskError::FileTooLarge { .. })),
        "{result:?}"
    );
    assert!(peak < MIB / 4, "{} KiB", peak / 1024);
    std::fs::remove_dir_all(&dir).unwrap();
}
