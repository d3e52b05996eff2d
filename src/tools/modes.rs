//! The rejection modes of the memory tools as English sentences (`memory-tools.md` 1.1), for
//! front ends that explain a rejection to a person (the native CLI, `qip-memory run`).

/// The sentences, indexed by mode (0–9); each names the cause and what the offset points at.
const DESCRIPTIONS: [&str; 10] = [
    "the request is not a valid multipart request; the offset points at the first byte that broke the grammar",
    "the target module is invalid or uses an unsupported feature; the offset points into the component part, at the decoder's offset in the module",
    "the target violates the Content contract (exports, getters, input region); the offset is the start of the component part",
    "a target uniform is bad (no such setter, bad signature, or a value that does not parse); the offset is the start of that uniform's value",
    "the target trapped; the offset points into the component part, at the trapping instruction",
    "the instruction budget was exhausted; the offset points into the component part, at the next instruction",
    "the target rejected its input; the offset points into the input part, at the target's own offset when it declares failure modes",
    "the target returned an invalid output (range, capacity or UTF-8); the offset is the start of the component part",
    "there is nothing to report; the offset is the end of the request",
    "a limit of the tool was exceeded (module size, memory, stack depth); the offset is the start of the component part",
];

/// The sentence for rejection `mode` of `memory-tools.md` 1.1 (no trailing period), or a
/// generic one for a mode outside 0–9.
pub fn mode_description(mode: u32) -> &'static str {
    usize::try_from(mode).ok().and_then(|m| DESCRIPTIONS.get(m)).copied().unwrap_or("unknown rejection mode")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_its_own_sentence() {
        for m in 0..10 {
            for n in 0..m {
                assert_ne!(mode_description(m), mode_description(n));
            }
        }
        assert!(mode_description(5).starts_with("the instruction budget was exhausted"));
        assert_eq!(mode_description(10), "unknown rejection mode");
    }
}
