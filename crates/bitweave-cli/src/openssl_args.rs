//! `openssl enc`'s own spelling for `bitweave enc`/`dec`, so a script switches by changing
//! the program name: single-dash long options (`-in`, `-pass`, `-pbkdf2`, …), the cipher
//! as an option (`-aes-256-cbc`, `-des3`), `-d`/`-e`, and `-k PASSWORD`. The arguments are
//! rewritten into bitweave's spelling before clap parses them; bitweave's own spelling
//! passes through unchanged.

use std::ffi::OsString;

/// Options that take a value: openssl's name and ours.
const WITH_VALUE: [(&str, &str); 8] = [
    ("-in", "--in"),
    ("-out", "--out"),
    ("-pass", "--pass"),
    ("-iv", "--iv"),
    ("-iter", "--iter"),
    ("-md", "--md"),
    ("-K", "-K"),
    ("-S", "-S"),
];
/// Flags: openssl's name and ours.
const FLAGS: [(&str, &str); 8] = [
    ("-a", "-a"),
    ("-base64", "-a"),
    ("-A", "-A"),
    ("-pbkdf2", "--pbkdf2"),
    ("-nosalt", "--nosalt"),
    ("-nopad", "--nopad"),
    ("-p", "-p"),
    ("-P", "-P"),
];
/// Accepted and ignored: `-salt` (the default) and the options with a value that only
/// tune openssl itself.
const IGNORED_FLAGS: [&str; 1] = ["-salt"];
const IGNORED_WITH_VALUE: [&str; 3] = ["-provider", "-bufsize", "-provider-path"];

/// A command line `translate` cannot rewrite: an option neither spelling has, or one
/// without its value.
#[derive(Debug)]
pub struct BadOption {
    /// `enc` or `dec`, as given.
    pub command: &'static str,
    /// In openssl's words (`enc: Unknown option or cipher: -x`).
    pub message: String,
    pub missing_value: bool,
}

/// Rewrites `bitweave enc|dec ARGS` from openssl's spelling; other commands pass through.
/// An option neither spelling has is a [`BadOption`] worded as openssl words it.
pub fn translate(args: Vec<OsString>) -> Result<Vec<OsString>, BadOption> {
    let Some(cmd) = args.get(1).and_then(|a| a.to_str()) else {
        return Ok(args);
    };
    let command = match cmd {
        "enc" => "enc",
        "dec" => "dec",
        _ => return Ok(args),
    };
    let unknown = |a: &str| BadOption {
        command,
        message: format!("enc: Unknown option or cipher: {a}"),
        missing_value: false,
    };
    let mut out: Vec<OsString> = vec![args[0].clone(), OsString::new()];
    let mut decrypt = cmd == "dec";
    let mut rest = args.into_iter().skip(2);
    while let Some(arg) = rest.next() {
        let Some(a) = arg.to_str().map(str::to_owned) else {
            out.push(arg);
            continue;
        };
        // bitweave's own spelling, values and file names pass through.
        if !a.starts_with('-') || a.starts_with("--") || a == "-" {
            out.push(arg);
            continue;
        }
        let mut value = || {
            rest.next().ok_or_else(|| BadOption {
                command,
                message: format!("enc: Option {a} needs a value"),
                missing_value: true,
            })
        };
        if a == "-d" {
            decrypt = true;
        } else if a == "-e" {
            decrypt = false;
        } else if let Some(&(_, ours)) = WITH_VALUE.iter().find(|(o, _)| *o == a) {
            let v = value()?;
            out.push(ours.into());
            out.push(v);
        } else if let Some(&(_, ours)) = FLAGS.iter().find(|(o, _)| *o == a) {
            out.push(ours.into());
        } else if a == "-k" {
            // The deprecated -k PASSWORD is -pass pass:PASSWORD.
            let v = value()?;
            let mut p = OsString::from("pass:");
            p.push(v);
            out.push("--pass".into());
            out.push(p);
        } else if IGNORED_FLAGS.contains(&a.as_str()) {
        } else if IGNORED_WITH_VALUE.contains(&a.as_str()) {
            value()?;
        } else if a.len() > 2 && a[1..].parse::<bitweave::Suite>().is_ok() {
            out.push("--cipher".into());
            out.push(a[1..].into());
        } else if a.len() == 2 {
            // bitweave's own short options (-c, -i, -o): clap checks them.
            out.push(arg);
        } else {
            return Err(unknown(&a));
        }
    }
    out[1] = if decrypt { "dec" } else { "enc" }.into();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(args: &str) -> Result<String, BadOption> {
        let v: Vec<OsString> = args.split(' ').map(OsString::from).collect();
        translate(v).map(|o| {
            o.iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
    }

    #[test]
    fn openssl_spelling_becomes_ours() {
        assert_eq!(
            t("bw enc -d -aes-256-cbc -pbkdf2 -pass env:PW -in x -out y").unwrap(),
            "bw dec --cipher aes-256-cbc --pbkdf2 --pass env:PW --in x --out y"
        );
        assert_eq!(
            t("bw enc -des3 -salt -k pw -md md5 -provider legacy -in x").unwrap(),
            "bw enc --cipher des3 --pass pass:pw --md md5 --in x"
        );
        assert_eq!(
            t("bw enc -e -seed-ofb -K 00 -iv 01 -nopad -S 0102030405060708 -p").unwrap(),
            "bw enc --cipher seed-ofb -K 00 --iv 01 --nopad -S 0102030405060708 -p"
        );
    }

    #[test]
    fn our_spelling_and_other_commands_pass_through() {
        let ours = "bw enc -c aes-128-ctr -K 00 --iv 01 -i - -o out --threads 2";
        assert_eq!(t(ours).unwrap(), ours);
        assert_eq!(t("bw list").unwrap(), "bw list");
        assert_eq!(t("bw seal -i x").unwrap(), "bw seal -i x");
    }

    #[test]
    fn base64_flags_translate() {
        assert_eq!(t("bw enc -base64 -A -in x").unwrap(), "bw enc -a -A --in x");
        assert_eq!(t("bw enc -d -a").unwrap(), "bw dec -a");
    }

    #[test]
    fn unknown_options_and_missing_values_are_bad_options() {
        let bad = |args: &str| {
            let b = t(args).unwrap_err();
            (b.command, b.message, b.missing_value)
        };
        assert_eq!(
            bad("bw enc -aes-256-gcm -in x"),
            (
                "enc",
                "enc: Unknown option or cipher: -aes-256-gcm".into(),
                false
            )
        );
        assert_eq!(
            bad("bw dec -bogus"),
            ("dec", "enc: Unknown option or cipher: -bogus".into(), false)
        );
        assert_eq!(
            bad("bw enc -in"),
            ("enc", "enc: Option -in needs a value".into(), true)
        );
    }
}
