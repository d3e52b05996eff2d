//! The KTX2 container in QIP's canonical RGBA8 sRGB layout (docs/heat-map.md, "KTX2 layout"), byte
//! for byte: a 104-byte header with one level index entry, the 92-byte basic data format descriptor
//! at 104, a 24-byte key/value block (`KTXorientation` = `rd`) at 196, four zero bytes, and the
//! pixels at 224. QIP's strict RGBA8 parser accepts exactly this layout; the Khronos validator
//! expects the pixels at 220 instead, and QIP compatibility wins.

/// Offset of the pixels, and the header size.
pub const PIXELS_OFFSET: usize = 224;
/// `VK_FORMAT_R8G8B8A8_SRGB`.
pub const VK_FORMAT_R8G8B8A8_SRGB: u32 = 43;
/// Largest width or height QIP's parser accepts.
pub const MAX_SIDE: u32 = 8192;
/// Largest pixel count QIP's parser accepts.
pub const MAX_PIXELS: u64 = 25_000_000;

/// The KTX2 file identifier («KTX 20»).
const IDENTIFIER: [u8; 12] = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];

/// Data format descriptor offset and length.
const DFD: (u32, u32) = (104, 92);
/// Key/value data offset and length.
const KVD: (u32, u32) = (196, 24);

/// Whether `width` × `height` fits QIP's parser (each side 1…8192, at most 25,000,000
/// pixels).
pub fn dimensions_ok(width: u32, height: u32) -> bool {
    (1..=MAX_SIDE).contains(&width)
        && (1..=MAX_SIDE).contains(&height)
        && width as u64 * height as u64 <= MAX_PIXELS
}

/// The 224 header bytes of an RGBA8 sRGB image of `width` × `height` pixels; the file is these
/// bytes followed by the `4 · width · height` pixel bytes (rows top to bottom, R, G, B, A).
///
/// # Panics
/// If the dimensions fail [`dimensions_ok`].
pub fn rgba8_srgb_header(width: u32, height: u32) -> [u8; PIXELS_OFFSET] {
    assert!(dimensions_ok(width, height), "KTX2 dimensions {width}x{height} out of range");
    let level_len = 4 * width as u64 * height as u64;
    let mut h = [0u8; PIXELS_OFFSET];
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        h[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    put(&IDENTIFIER);
    for v in [VK_FORMAT_R8G8B8A8_SRGB, 1, width, height, 0, 0, 1, 1, 0, DFD.0, DFD.1, KVD.0, KVD.1] {
        // vkFormat, typeSize, pixelWidth, pixelHeight, pixelDepth, layerCount, faceCount,
        // levelCount, supercompressionScheme, dfdByteOffset/Length, kvdByteOffset/Length.
        put(&v.to_le_bytes());
    }
    // sgdByteOffset, sgdByteLength, then level 0: byteOffset, byteLength, uncompressedByteLength.
    for v in [0, 0, PIXELS_OFFSET as u64, level_len, level_len] {
        put(&v.to_le_bytes());
    }
    // DFD: total size, then one basic descriptor block (Khronos Data Format 1.3, section 5).
    put(&DFD.1.to_le_bytes());
    put(&[0, 0, 0, 0]); // vendorId 0 (Khronos), descriptorType 0 (basic)
    put(&[2, 0, 88, 0]); // versionNumber 2, descriptorBlockSize 88
    put(&[1, 1, 2, 0]); // colorModel RGBSDA, primaries BT.709, transfer sRGB, straight alpha
    put(&[0, 0, 0, 0]); // texelBlockDimension 1×1×1×1 (stored minus one)
    put(&[4, 0, 0, 0, 0, 0, 0, 0]); // bytesPlane0 = 4
    // Samples: bitOffset, bitLength − 1, channelType; position 0; lower 0; upper 255.
    for (bit_offset, channel) in [(0u16, 0u8), (8, 1), (16, 2), (24, 0x1F)] {
        put(&bit_offset.to_le_bytes());
        put(&[7, channel, 0, 0, 0, 0]);
        put(&0u32.to_le_bytes());
        put(&255u32.to_le_bytes());
    }
    // Key/value data: one entry, KTXorientation = "rd", padded to 4 bytes.
    put(&18u32.to_le_bytes());
    put(b"KTXorientation\0rd\0\0\0");
    debug_assert_eq!(at, 220);
    h
}

/// A whole KTX2 file for RGBA8 sRGB `pixels` (`4 · width · height` bytes, rows top to bottom).
///
/// # Panics
/// If the dimensions fail [`dimensions_ok`] or `pixels` has another length.
pub fn rgba8_srgb(width: u32, height: u32, pixels: &[u8]) -> alloc::vec::Vec<u8> {
    assert_eq!(pixels.len() as u64, 4 * width as u64 * height as u64);
    let mut out = alloc::vec::Vec::with_capacity(PIXELS_OFFSET + pixels.len());
    out.extend_from_slice(&rgba8_srgb_header(width, height));
    out.extend_from_slice(pixels);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of docs/heat-map.md, "KTX2 layout", transcribed field by field.
    #[test]
    fn header_matches_qip_layout() {
        let f = rgba8_srgb(2, 3, &[7; 24]);
        assert_eq!(f.len(), 224 + 24);
        let u32_at = |o: usize| u32::from_le_bytes(f[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(f[o..o + 8].try_into().unwrap());
        assert_eq!(&f[..12], b"\xABKTX 20\xBB\r\n\x1A\n");
        let fields = [(12, 43), (16, 1), (20, 2), (24, 3), (28, 0), (32, 0), (36, 1), (40, 1), (44, 0)];
        for (o, v) in fields {
            assert_eq!(u32_at(o), v, "u32 at {o}");
        }
        assert_eq!([u32_at(48), u32_at(52), u32_at(56), u32_at(60)], [104, 92, 196, 24]);
        assert_eq!([u64_at(64), u64_at(72), u64_at(80), u64_at(88), u64_at(96)], [0, 0, 224, 24, 24]);
        let dfd: [u8; 92] = [
            0x5C, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x58, 0, 1, 1, 2, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, //
            0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, //
            8, 0, 7, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, //
            0x10, 0, 7, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, //
            0x18, 0, 7, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0,
        ];
        assert_eq!(&f[104..196], &dfd[..]);
        assert_eq!(&f[196..220], b"\x12\0\0\0KTXorientation\0rd\0\0\0");
        assert_eq!(&f[220..224], &[0; 4]);
        assert_eq!(&f[224..], &[7; 24]);
    }

    #[test]
    fn dimension_limits() {
        assert!(dimensions_ok(256, 8192));
        assert!(!dimensions_ok(0, 1));
        assert!(!dimensions_ok(256, 8193));
        assert!(!dimensions_ok(5000, 5001));
    }
}
