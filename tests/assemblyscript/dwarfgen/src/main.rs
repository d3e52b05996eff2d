//! `dwarfgen LAYOUT_JSON IN_WASM OUT_WASM`: appends WARPO-shaped DWARF to an asc-compiled
//! module (see the library's documentation). OUT_WASM may equal IN_WASM.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [layout, input, output] = args.as_slice() else {
        eprintln!("usage: dwarfgen LAYOUT_JSON IN_WASM OUT_WASM");
        return ExitCode::from(2);
    };
    let result = (|| -> Result<(), String> {
        let json = std::fs::read_to_string(layout).map_err(|e| format!("{layout}: {e}"))?;
        let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        let out = dwarfgen::run(&json, &wasm)?;
        std::fs::write(output, out).map_err(|e| format!("{output}: {e}"))
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dwarfgen: {e}");
            ExitCode::FAILURE
        }
    }
}
