//! `marvin --completions SHELL`: completion scripts for bash, zsh and fish, made from the
//! options --help lists, the providers' names, the permission modes and `--on-ask`'s modes
//! (`wait:` among them), and `serve` as a first word; profile names and stored sessions (ids
//! and names, for `--resume`) are read by the script itself from `$MARVIN_HOME` when the
//! shell completes.

use crate::cli::{OptionHelp, options};
use crate::config::ProviderKind;
use crate::interact::approvals::PermissionMode;

/// The shells Marvin writes a script for.
const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

/// Where the profiles are, in shell: MARVIN_HOME, else the XDG config directory.
const PROFILES: &str = "${MARVIN_HOME:-${XDG_CONFIG_HOME:-$HOME/.config}/marvin}/profiles";

/// The stored sessions' ids and names, one a line, in shell (names from each meta.json as
/// it is written: pretty JSON, two spaces in).
const SESSIONS: &str = "{ d=\"${MARVIN_HOME:-${XDG_CONFIG_HOME:-$HOME/.config}/marvin}/sessions\"; \
command ls \"$d\" 2>/dev/null; \
command sed -n 's/^  \"name\": \"\\(.*\\)\",\\{0,1\\}$/\\1/p' \"$d\"/*/meta.json 2>/dev/null; }";

/// What `serve` does, for the shells that describe a word.
const SERVE: &str = "serve sessions over HTTP on 127.0.0.1";
/// What `mcp` does (`marvin mcp login|logout NAME`).
const MCP: &str = "sign in to or out of an MCP server";

/// The completion script for `shell`, or why there is none.
pub fn script(shell: &str) -> Result<String, String> {
    let options = options();
    match shell {
        "bash" => Ok(bash(&options)),
        "zsh" => Ok(zsh(&options)),
        "fish" => Ok(fish(&options)),
        other => Err(format!(
            "--completions: no script for {other:?}; the shells are {}",
            SHELLS.join(", ")
        )),
    }
}

/// What completes an option's value, by option.
enum Values {
    Words(Vec<&'static str>),
    Profiles,
    Sessions,
    Directories,
    Anything,
}

fn values(option: &OptionHelp) -> Option<Values> {
    option.value?;
    Some(match option.long {
        "provider" => Values::Words(ProviderKind::ALL.iter().map(|k| k.name()).collect()),
        "permission-mode" => Values::Words(PermissionMode::NAMES.to_vec()),
        "on-ask" => {
            let mut names = crate::config::OnAsk::NAMES.to_vec();
            names.push("wait:");
            Values::Words(names)
        }
        "resume" => Values::Sessions,
        "completions" => Values::Words(SHELLS.to_vec()),
        "profile" => Values::Profiles,
        "working-dir" => Values::Directories,
        _ => Values::Anything,
    })
}

fn bash(options: &[OptionHelp]) -> String {
    let mut cases = String::new();
    for option in options {
        let reply = match values(option) {
            None => continue,
            Some(Values::Words(words)) => {
                format!(
                    "COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))",
                    words.join(" ")
                )
            }
            Some(Values::Profiles) => format!(
                "COMPREPLY=($(compgen -W \"$(command ls \"{PROFILES}\" 2>/dev/null)\" -- \"$cur\"))"
            ),
            Some(Values::Directories) => "COMPREPLY=($(compgen -d -- \"$cur\"))".to_string(),
            Some(Values::Sessions) => format!(
                "local IFS=$'\\n'; COMPREPLY=($(compgen -W \"$({SESSIONS})\" -- \"$cur\" | while read -r s; do printf '%q\\n' \"$s\"; done))"
            ),
            Some(Values::Anything) => "COMPREPLY=()".to_string(),
        };
        cases.push_str(&format!("    --{}) {reply}; return ;;\n", option.long));
    }
    let flags: Vec<String> = options
        .iter()
        .flat_map(|o| {
            let short = o.short.map(|c| format!("-{c}"));
            std::iter::once(format!("--{}", o.long)).chain(short)
        })
        .collect();
    format!(
        "# bash completion for marvin (marvin --completions bash)\n\
         _marvin() {{\n\
         \x20   local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         \x20   case \"$prev\" in\n{cases}\x20   esac\n\
         \x20   if [[ \"$cur\" == -* ]]; then\n\
         \x20       COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n\
         \x20   elif [[ $COMP_CWORD == 1 ]]; then\n\
         \x20       COMPREPLY=($(compgen -W \"serve mcp\" -- \"$cur\"))\n\
         \x20   elif [[ $COMP_CWORD == 2 && \"$prev\" == mcp ]]; then\n\
         \x20       COMPREPLY=($(compgen -W \"login logout\" -- \"$cur\"))\n\
         \x20   fi\n\
         }}\n\
         complete -o default -F _marvin marvin\n",
        flags.join(" ")
    )
}

fn zsh(options: &[OptionHelp]) -> String {
    let mut specs = String::new();
    for option in options {
        let about = zsh_quote(&option.about);
        let action = match values(option) {
            None => String::new(),
            Some(values) => {
                let name = option.value.unwrap_or("value").to_ascii_lowercase();
                let action = match values {
                    Values::Words(words) => format!("({})", words.join(" ")),
                    Values::Profiles => format!("{{_files -W \"{PROFILES}\" -/}}"),
                    Values::Sessions => {
                        format!(
                            "{{compadd -- ${{(f)\"$({})\"}}}}",
                            SESSIONS.replace('\'', "'\\''")
                        )
                    }
                    Values::Directories => "_directories".to_string(),
                    Values::Anything => " ".to_string(),
                };
                format!(":{name}:{action}")
            }
        };
        let names = match option.short {
            Some(short) => format!(
                "(-{short} --{long})'{{-{short},--{long}}}'",
                long = option.long
            ),
            None => format!("--{}", option.long),
        };
        specs.push_str(&format!("    '{names}[{about}]{action}' \\\n"));
    }
    format!(
        "#compdef marvin\n\
         # zsh completion for marvin (marvin --completions zsh > \"${{fpath[1]}}/_marvin\")\n\
         _arguments -s \\\n{specs}    '1::first word:(({{serve\\:\"{SERVE}\" mcp\\:\"{MCP}\"}}))' \\\n    '*:question: '\n"
    )
}

fn fish(options: &[OptionHelp]) -> String {
    let mut lines = String::from(FISH_PROFILES);
    for option in options {
        let mut line = format!("complete -c marvin -l {}", option.long);
        if let Some(short) = option.short {
            line.push_str(&format!(" -s {short}"));
        }
        match values(option) {
            None => {}
            Some(Values::Words(words)) => {
                line.push_str(&format!(" -x -a '{}'", words.join(" ")));
            }
            Some(Values::Profiles) => line.push_str(" -x -a '(__marvin_profiles)'"),
            Some(Values::Sessions) => line.push_str(" -x -a '(__marvin_sessions)'"),
            Some(Values::Directories) => line.push_str(" -x -a '(__fish_complete_directories)'"),
            Some(Values::Anything) => line.push_str(" -x"),
        }
        line.push_str(&format!(" -d '{}'\n", option.about.replace('\'', "\\'")));
        lines.push_str(&line);
    }
    lines.push_str(&format!(
        "complete -c marvin -n __fish_use_subcommand -f -a serve -d '{SERVE}'\n\
         complete -c marvin -n __fish_use_subcommand -f -a mcp -d '{MCP}'\n\
         complete -c marvin -n '__fish_seen_subcommand_from mcp' -f -a 'login logout'\n"
    ));
    lines
}

/// The fish script's head: the profile names, from MARVIN_HOME or the XDG config directory.
const FISH_PROFILES: &str = "\
# fish completion for marvin (marvin --completions fish)
function __marvin_home
    if test -n \"$MARVIN_HOME\"
        echo $MARVIN_HOME
    else if test -n \"$XDG_CONFIG_HOME\"
        echo $XDG_CONFIG_HOME/marvin
    else
        echo ~/.config/marvin
    end
end
function __marvin_profiles
    command ls (__marvin_home)/profiles 2>/dev/null
end
function __marvin_sessions
    set -l home (__marvin_home)
    command ls $home/sessions 2>/dev/null
    command sed -n 's/^  \"name\": \"\\(.*\\)\",\\{0,1\\}$/\\1/p' $home/sessions/*/meta.json 2>/dev/null
end
";

/// Text inside a single-quoted zsh `_arguments` spec's `[...]`.
fn zsh_quote(text: &str) -> String {
    text.replace('\'', "'\\''")
        .replace('[', "\\[")
        .replace(']', "\\]")
        .replace(':', "\\:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Command, parse};

    #[test]
    fn every_option_of_the_help_is_one_the_parser_takes() {
        let options = options();
        let names: Vec<&str> = options.iter().map(|o| o.long).collect();
        for expected in [
            "provider",
            "profile",
            "working-dir",
            "completions",
            "help",
            "version",
        ] {
            assert!(names.contains(&expected), "{names:?}");
        }
        let version = options.iter().find(|o| o.long == "version").unwrap();
        assert_eq!((version.short, version.value), (Some('V'), None));
        let provider = options.iter().find(|o| o.long == "provider").unwrap();
        assert_eq!(provider.value, Some("NAME"));
        // A description of several lines is read whole, even a line that starts with a flag.
        assert_eq!(
            provider.about,
            "copilot, openai, gemini, groq, ollama or openai-compat"
        );
        let mode = options
            .iter()
            .find(|o| o.long == "permission-mode")
            .unwrap();
        assert!(
            mode.about.ends_with("bypass with --non-interactive"),
            "{}",
            mode.about
        );
        for option in &options {
            let mut args = vec![format!("--{}", option.long)];
            if option.value.is_some() {
                args.push(match option.long {
                    "permission-mode" => "plan".into(),
                    "completions" => "bash".into(),
                    "on-ask" => "fail".into(),
                    "port" => "8765".into(),
                    "listen" => "127.0.0.2".into(),
                    "attach" => "http://127.0.0.1:9/?token=x".into(),
                    _ => "x".into(),
                });
            }
            if ["json", "prompt", "ntfy", "on-ask"].contains(&option.long) {
                args.push("--non-interactive".into());
            }
            if option.long == "answer" {
                args.extend(["--resume".into(), "x".into()]);
            }
            if option.long == "port" || option.long == "listen" {
                args.push("serve".into());
            }
            let parsed = parse(args.iter().map(Into::into));
            assert!(
                matches!(
                    parsed,
                    Ok(Command::Run(_)
                        | Command::Help
                        | Command::Version
                        | Command::ListProviders
                        | Command::Completions(_))
                ),
                "--{} is in --help but the parser says {parsed:?}",
                option.long
            );
        }
    }

    #[test]
    fn the_manual_has_the_options_of_the_help_and_no_other() {
        let manual = include_str!("../doc/marvin.1");
        let section = manual
            .split_once(".SH OPTIONS\n")
            .and_then(|(_, rest)| rest.split_once("\n.SH "))
            .map(|(options, _)| options)
            .unwrap();
        let named: Vec<&str> = section
            .split("\\fB\\-\\-")
            .skip(1)
            .filter_map(|rest| rest.split_once("\\fR").map(|(name, _)| name))
            .collect();
        let names: Vec<String> = named.iter().map(|n| n.replace("\\-", "-")).collect();
        let options: Vec<&str> = options().iter().map(|o| o.long).collect();
        assert_eq!(names, options, "doc/marvin.1's OPTIONS and --help differ");
    }

    #[test]
    fn each_shell_gets_every_option_and_an_unknown_shell_is_named() {
        for shell in SHELLS {
            let text = script(shell).unwrap();
            for option in options() {
                assert!(text.contains(option.long), "{shell}: {}", option.long);
            }
            assert!(
                text.contains("openai-compat") && text.contains("accept-edits"),
                "{shell}"
            );
        }
        assert_eq!(
            script("tcsh").unwrap_err(),
            "--completions: no script for \"tcsh\"; the shells are bash, zsh, fish"
        );
    }
}
