//! The WASI host of a program from the command line, spelled as wasmtime spells it
//! (docs/programs.md): `--dir HOST::GUEST` (or `--dir HOST`, granted as HOST), `--env
//! KEY=VALUE` (or `--env KEY`, our value), `--stdin FILE`, `--seed N`, and the arguments after
//! `--` with `argv[0]` the module's file name.

use std::path::{Path, PathBuf};

use qip_memory::wasi::{Config, Output, Preopen, Stdin};

use crate::Failure;
use crate::target::TargetArgs;

/// `--dir HOST::GUEST` as a preopen; `--dir HOST` grants HOST under its own name.
///
/// # Errors
/// A [`Failure`] for an empty host or guest path.
pub fn preopen(arg: &str) -> Result<Preopen, Failure> {
    let (host, guest) = match arg.split_once("::") {
        Some((h, g)) => (h, g),
        None => (arg, arg),
    };
    if host.is_empty() || guest.is_empty() {
        return Err(Failure::new(format!("--dir {arg}: expected HOST::GUEST or HOST")));
    }
    Ok(Preopen { host: PathBuf::from(host), guest: guest.to_owned() })
}

/// An environment variable's key and value, as bytes.
pub type Variable = (Vec<u8>, Vec<u8>);

/// `--env KEY=VALUE`, or `--env KEY` with our value of KEY (left out when we have none).
///
/// # Errors
/// A [`Failure`] for an empty key.
pub fn variable(arg: &str) -> Result<Option<Variable>, Failure> {
    let (key, value) = match arg.split_once('=') {
        Some((k, v)) => (k, Some(v.as_bytes().to_vec())),
        None => (arg, std::env::var_os(arg).map(|v| v.into_encoded_bytes())),
    };
    if key.is_empty() {
        return Err(Failure::new(format!("--env {arg}: expected KEY=VALUE or KEY")));
    }
    Ok(value.map(|v| (key.as_bytes().to_vec(), v)))
}

/// `argv[0]` as wasmtime gives it: the module's file name without its directories.
pub fn argv0(path: &str) -> Vec<u8> {
    Path::new(path).file_name().map_or_else(|| path.as_bytes().to_vec(), |n| n.as_encoded_bytes().to_vec())
}

/// [`argv0`] as text (lossy UTF-8).
pub fn argv0_text(path: &str) -> String {
    String::from_utf8_lossy(&argv0(path)).into_owned()
}

/// The WASI configuration of `args` for the program at `path`: its standard output and error
/// are ours, written through.
///
/// # Errors
/// A [`Failure`] for a malformed `--dir` or `--env`, or an unreadable `--stdin` file.
pub fn config(args: &TargetArgs, path: &str) -> Result<Config, Failure> {
    let mut argv = vec![argv0(path)];
    argv.extend(args.program_args.iter().map(|a| a.as_bytes().to_vec()));
    let mut env = Vec::new();
    for e in &args.env {
        env.extend(variable(e)?);
    }
    let dirs = args.dirs.iter().map(|d| preopen(d)).collect::<Result<Vec<_>, _>>()?;
    let stdin = match &args.stdin {
        Some(file) => Stdin::Bytes(crate::read_file(file)?),
        None => Stdin::Reader(Box::new(std::io::stdin())),
    };
    Ok(Config {
        args: argv,
        env,
        dirs,
        stdin,
        stdout: Output::Stdout,
        stderr: Output::Stderr,
        seed: args.seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirs_are_spelled_as_wasmtime_spells_them() {
        let p = preopen("data::/in").unwrap();
        assert_eq!((p.host, p.guest.as_str()), (PathBuf::from("data"), "/in"));
        let p = preopen(".").unwrap();
        assert_eq!((p.host, p.guest.as_str()), (PathBuf::from("."), "."));
        assert!(preopen("::x").is_err());
        assert!(preopen("x::").is_err());
    }

    #[test]
    fn argv0_is_the_file_name() {
        assert_eq!(argv0("tests/programs/rust-wasi.wasm"), b"rust-wasi.wasm");
        assert_eq!(argv0("app.wasm"), b"app.wasm");
    }

    #[test]
    fn variables() {
        assert_eq!(variable("A=1=2").unwrap(), Some((b"A".to_vec(), b"1=2".to_vec())));
        assert_eq!(variable("A=").unwrap(), Some((b"A".to_vec(), Vec::new())));
        assert!(variable("=1").is_err());
        assert_eq!(variable("QIP_MEMORY_SURELY_UNSET_VARIABLE").unwrap(), None);
    }
}
