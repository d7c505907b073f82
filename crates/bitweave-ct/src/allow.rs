//! The public decisions inside the library: branches on a secret-derived value that are
//! allowed because the value is public by design. ctgrind users mark such a value
//! defined (`VALGRIND_MAKE_MEM_DEFINED`) right before the decision; these decisions sit
//! inside bitweave's own functions, where the harness cannot, so each is allowed at its
//! one source line instead — found by a marker text, so an edit that moves or changes it
//! makes the check fail rather than silently allow something else.
//!
//! What is allowed is only the branch itself (`UninitCondition` with that line as the
//! innermost frame); a secret address or any other branch in the same function is still
//! a failure.

use crate::vgxml::Report;

/// One allowed decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// Path from the workspace root.
    pub file: &'static str,
    /// Text found on exactly one line of `file`: the decision.
    pub marker: &'static str,
    /// Why the decision is public.
    pub why: &'static str,
}

/// Every allowed decision.
pub const SITES: [Site; 4] = [
    Site {
        file: "crates/bitweave/src/mode/padding.rs",
        marker: "if bad == 0 {",
        why: "the PKCS#7 verdict: a rejected ciphertext is reported to the caller",
    },
    Site {
        file: "crates/bitweave/src/aead/front.rs",
        marker: "if tags_equal(&s.tag, tag_of(c, r)) {",
        why: "the π-Cipher tag verdict: a forgery is reported to the caller",
    },
    Site {
        file: "crates/bitweave/src/aead/front.rs",
        marker: "if tags_equal(tag, tag_of(c, r)) {",
        why: "the π-Cipher tag verdict into caller buffers: a forgery is reported and its buffer wiped",
    },
    Site {
        file: "crates/bitweave/src/aead/gcm/mod.rs",
        marker: "if tags_equal(&expected, tag) {",
        why: "the AES-GCM tag verdict: a forgery is reported to the caller",
    },
];

/// A site with its current line number.
#[derive(Clone, Copy, Debug)]
pub struct Resolved {
    pub site: Site,
    pub line: u32,
}

/// Finds each site's line in the sources under `root` (the workspace root).
pub fn resolve(root: &std::path::Path) -> Result<Vec<Resolved>, String> {
    SITES
        .iter()
        .map(|s| {
            let path = root.join(s.file);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let lines: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(s.marker))
                .map(|(i, _)| i + 1)
                .collect();
            match lines[..] {
                [line] => Ok(Resolved {
                    site: *s,
                    line: line as u32,
                }),
                _ => Err(format!(
                    "allowed decision `{}` found on {} lines of {} (expected one): \
                     update bitweave-ct's allow list",
                    s.marker,
                    lines.len(),
                    s.file
                )),
            }
        })
        .collect()
}

/// The site that allows `r`, if any.
pub fn allowing<'a>(r: &Report, sites: &'a [Resolved]) -> Option<&'a Resolved> {
    if r.kind != "UninitCondition" {
        return None;
    }
    let top = r.frames.first()?;
    let path = top.path();
    sites
        .iter()
        .find(|s| path.ends_with(s.site.file) && top.line == s.line)
}
