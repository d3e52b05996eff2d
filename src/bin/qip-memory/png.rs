//! PNG output of the CLI: the heat map's pixels as an 8-bit RGBA PNG (the README's CLI reference:
//! same bytes as the KTX2 payload), and the re-encoding of a final `image/ktx2` output by
//! `run -o NAME.png` (docs/content.md, "The host `qip-memory run`"). Encoding is the `png` crate's,
//! reading KTX2 the `ktx2` crate's (`host` feature only, like `run`).

use crate::Failure;

/// An 8-bit RGBA PNG of `rgba` (`4 · width · height` bytes, rows top to bottom), written
/// without colour chunks: the bytes are stored as they are.
///
/// # Errors
/// A [`Failure`] when the encoder refuses the image.
pub fn encode(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let fail = |e: png::EncodingError| Failure::new(format!("PNG encoding: {e}"));
    let mut writer = encoder.write_header().map_err(fail)?;
    writer.write_image_data(rgba).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}

/// Re-encodes a KTX2 file holding one 2D level of 8-bit sRGB pixels, RGBA (`vkFormat` 43) or
/// BGRA (50), without supercompression, as a PNG: what QIP's
/// `ktx2-r8g8b8a8-or-b8g8r8a8-srgb-to-png.wasm` accepts (docs/heat-map.md, "KTX2 layout"). Rows are
/// taken top to bottom as stored.
///
/// # Errors
/// A [`Failure`] saying what the file is when it is not such a KTX2 file.
#[cfg(feature = "host")]
pub fn from_ktx2(bytes: &[u8]) -> Result<Vec<u8>, Failure> {
    let fail = |m: String| Failure::new(format!("cannot re-encode the KTX2 output as PNG: {m}"));
    let reader = ktx2::Reader::new(bytes).map_err(|e| fail(format!("{e:?}")))?;
    let h = reader.header();
    let bgra = match h.format {
        Some(ktx2::Format::R8G8B8A8_SRGB) => false,
        Some(ktx2::Format::B8G8R8A8_SRGB) => true,
        other => return Err(fail(format!("format {other:?} is not R8G8B8A8_SRGB or B8G8R8A8_SRGB"))),
    };
    if h.supercompression_scheme.is_some() || h.pixel_depth > 1 || h.layer_count > 1 || h.face_count != 1 {
        return Err(fail("not a single uncompressed 2D image".into()));
    }
    let level = reader.levels().next().ok_or_else(|| fail("no level".into()))?;
    let (w, hgt) = (h.pixel_width, h.pixel_height.max(1));
    let len = 4 * w as usize * hgt as usize;
    if level.data.len() != len {
        return Err(fail(format!("level 0 has {} bytes, expected {len}", level.data.len())));
    }
    let mut rgba = level.data.to_vec();
    if bgra {
        for px in rgba.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    encode(w, hgt, &rgba)
}
