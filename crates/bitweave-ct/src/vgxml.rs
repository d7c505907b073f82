//! Reads memcheck's XML output (`--xml=yes`, protocol 4): each distinct error with its
//! kind and stack (inlined frames included), and how often it occurred. Only the few
//! flat elements the checks need are read.

/// One stack frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub func: String,
    pub dir: String,
    pub file: String,
    pub line: u32,
}

impl Frame {
    /// `dir/file`, or just `file` when valgrind had no directory.
    pub fn path(&self) -> String {
        if self.dir.is_empty() {
            self.file.clone()
        } else {
            format!("{}/{}", self.dir, self.file)
        }
    }
}

/// One distinct error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// `unique` id, matching the counts.
    pub unique: String,
    /// `UninitCondition` (a branch on a secret), `UninitValue` (a secret address), ...
    pub kind: String,
    pub what: String,
    /// Innermost first.
    pub frames: Vec<Frame>,
    /// Occurrences (from `errorcounts`).
    pub count: u64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} x{} ({})", self.what, self.count, self.kind)?;
        for fr in self.frames.iter().take(6) {
            write!(f, "\n    at {} ({}:{})", fr.func, fr.path(), fr.line)?;
        }
        Ok(())
    }
}

/// The text of every `<tag>...</tag>` in `s`, in order (no nesting of the same tag).
fn elements<'a>(s: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(j) = after.find(&close) else { break };
        out.push(&after[..j]);
        rest = &after[j + close.len()..];
    }
    out
}

fn first(s: &str, tag: &str) -> String {
    elements(s, tag)
        .first()
        .map(|t| unescape(t.trim()))
        .unwrap_or_default()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Parses a whole XML output file. `Err` when it is not complete memcheck output (a
/// crashed run must not read as a clean one).
pub fn parse(xml: &str) -> Result<Vec<Report>, String> {
    if !xml.contains("<protocolversion>") || !xml.contains("</valgrindoutput>") {
        return Err("valgrind XML output missing or truncated".into());
    }
    let counts: Vec<(String, u64)> = elements(xml, "errorcounts")
        .iter()
        .flat_map(|c| elements(c, "pair"))
        .map(|p| (first(p, "unique"), first(p, "count").parse().unwrap_or(1)))
        .collect();
    let reports = elements(xml, "error")
        .into_iter()
        .map(|e| {
            let unique = first(e, "unique");
            let count = counts
                .iter()
                .find(|(u, _)| *u == unique)
                .map_or(1, |(_, c)| *c);
            Report {
                kind: first(e, "kind"),
                what: first(e, "what"),
                frames: elements(e, "frame")
                    .into_iter()
                    .map(|f| Frame {
                        func: first(f, "fn"),
                        dir: first(f, "dir"),
                        file: first(f, "file"),
                        line: first(f, "line").parse().unwrap_or(0),
                    })
                    .collect(),
                unique,
                count,
            }
        })
        .collect();
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_errors_frames_and_counts() {
        let xml = "<valgrindoutput><protocolversion>4</protocolversion>\
            <error><unique>0x3</unique><kind>UninitValue</kind>\
            <what>Use of uninitialised value of size 8</what><stack>\
            <frame><ip>0x1</ip><fn>a::b&lt;u8&gt;</fn><dir>/x/src</dir><file>m.rs</file>\
            <line>7</line></frame><frame><fn>main</fn></frame></stack></error>\
            <errorcounts><pair><count>5</count><unique>0x3</unique></pair></errorcounts>\
            </valgrindoutput>";
        let r = parse(xml).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].kind, "UninitValue");
        assert_eq!(r[0].count, 5);
        assert_eq!(r[0].frames[0].func, "a::b<u8>");
        assert_eq!(r[0].frames[0].path(), "/x/src/m.rs");
        assert_eq!(r[0].frames[0].line, 7);
        assert_eq!(r[0].frames[1].line, 0);
        assert!(parse("<valgrindoutput>").is_err());
    }
}
