//! Reading what `qip-memory report` and `thermal --png`/`--view` write, for the tests that
//! check them (independently of the code under test: serde_json and the `png` crate).

use serde_json::Value;

/// The report's data object, the JSON in `<script type="application/json"
/// id="qip-memory-data">` (docs/report.md, "The data object").
pub fn data_of(html: &str) -> Value {
    let start = r#"<script type="application/json" id="qip-memory-data">"#;
    let (_, rest) = html.split_once(start).expect("the data element");
    let (json, _) = rest.split_once("</script>").expect("its end");
    serde_json::from_str(json).expect("valid JSON")
}

/// A JSON number that must be a `u64`.
pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Decodes a PNG with the `png` crate: `(width, height, RGBA bytes)`; panics unless it is
/// 8-bit RGBA.
pub fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}
