//! docs/cli.md's synopsis names every flag of every command, as `--help`
//! lists them.

use super::run;

/// The long flags `toolbox COMMAND --help` lists, but `--help` itself
/// and the global `--registry`, which the page names once for all.
fn flags_of(command: &[&str]) -> Vec<String> {
    let args = [command, &["--help"]].concat();
    let output = run(&args);
    assert!(output.status.success(), "{args:?}");
    let help = String::from_utf8(output.stdout).unwrap();
    let mut flags: Vec<String> = help
        .lines()
        .filter_map(|line| {
            // `      --json  ...` or `  -q, --quiet  ...`: the long form.
            let line = line.trim_start();
            let line = match line.strip_prefix('-') {
                Some(rest) if !rest.starts_with('-') => rest.get(3..)?,
                _ => line,
            };
            let flag = line.strip_prefix("--")?;
            let name: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            Some(format!("--{name}"))
        })
        .filter(|flag| flag != "--help" && flag != "--registry")
        .collect();
    flags.dedup();
    flags
}

#[test]
fn the_synopsis_names_every_flag_of_every_command() {
    let page = include_str!("../../../docs/cli.md");
    let synopsis: String = page
        .split("```text\n")
        .nth(1)
        .and_then(|block| block.split("```").next())
        .expect("the page opens with a synopsis")
        .to_owned();
    // An indented line goes on the entry above it.
    let mut entries: Vec<String> = Vec::new();
    for line in synopsis.lines() {
        match entries.last_mut() {
            Some(entry) if line.starts_with(' ') => entry.push_str(line),
            _ => entries.push(line.to_owned()),
        }
    }
    let commands: [&[&str]; 7] = [
        &["list"],
        &["schema"],
        &["call"],
        &["config"],
        &["serve"],
        &["task", "get"],
        &["task", "cancel"],
    ];
    for command in commands {
        let lines: Vec<&String> = entries
            .iter()
            .filter(|line| line.starts_with(&format!("toolbox {} ", command[0])))
            .collect();
        assert!(!lines.is_empty(), "no synopsis line for {command:?}");
        let flags = flags_of(command);
        assert!(!flags.is_empty(), "{command:?} --help lists no flags");
        for flag in flags {
            let named = lines.iter().any(|line| {
                line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|word| word == flag)
            });
            assert!(named, "docs/cli.md's synopsis of {command:?} lacks {flag}");
        }
    }
}
