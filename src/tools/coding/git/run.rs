//! Running git in a repository someone else may have prepared: its configuration (and any file
//! it includes) can name programs for git to run, and its `.git` can point git elsewhere.
//! Every call of the git tools goes through [`exit`], which pins git to the checked repository
//! (see `pin`), switches those programs off, keeps Marvin's keys from git and what it starts,
//! confines it, and never lets git prompt or page.

use std::process::Command;
use std::time::Duration;

use super::pin::{Pinned, pin};
use crate::sandbox::Paths;
use crate::tools::ToolContext;
use crate::tools::kit::process::{self, Ending, Exit, RunLimits};

const TIMEOUT: Duration = Duration::from_secs(60);
/// The configuration is read whole or not at all: a listing cut short could hide a filter.
const CONFIG_CAP: usize = 8 * 1024 * 1024;

/// Settings given to every git call, above whatever the repository says. Each closes a way
/// configuration makes git run a program (git-config(1), githooks(5), gitattributes(5)):
const OVERRIDES: &[(&str, &str)] = &[
    // The file-system monitor, asked by status, diff, add, commit, blame and checkout.
    ("core.fsmonitor", "false"),
    // Hook scripts, in .git/hooks or wherever core.hooksPath points. Hooks defined in
    // configuration (hook.<name>.command, git 2.54) are switched off by name, see below.
    ("core.hooksPath", "/dev/null"),
    // Pagers (core.pager, pager.<command>; also --no-pager and GIT_PAGER) and editors
    // (core.editor, sequence.editor; also GIT_EDITOR and GIT_SEQUENCE_EDITOR).
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    // External diff programs: diff.external here, diff.<driver>.command by --no-ext-diff.
    ("diff.external", ""),
    // Signing and checking signatures run gpg.program, gpg.<format>.program and the ssh
    // key command.
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.ssh.defaultKeyCommand", ""),
    // No transport at all, so nothing reaches core.sshCommand, core.gitProxy,
    // remote.<name>.uploadpack/receivepack/vcs, the ext:: transport, credential helpers,
    // askpass programs, or a partial clone's lazy fetch (also GIT_NO_LAZY_FETCH).
    ("protocol.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("protocol.file.allow", "never"),
    ("protocol.git.allow", "never"),
    ("protocol.ssh.allow", "never"),
    ("protocol.http.allow", "never"),
    ("protocol.https.allow", "never"),
    ("core.sshCommand", "false"),
    ("credential.helper", ""),
    ("core.alternateRefsCommand", ""),
    // Automatic maintenance after a commit starts more git processes, and may prefetch.
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    // A submodule has its own configuration, which is not read here: never look inside one.
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"),
    ("status.submoduleSummary", "false"),
    // Paths as the tools mean them: staged changes listed from the top of the repository,
    // never only the working directory's (a repository's diff.relative would hide the rest).
    ("diff.relative", "false"),
    // Plain output for the model.
    ("color.ui", "false"),
    ("core.quotepath", "false"),
];

/// Runs `git args...` in the working directory, pinned to the repository that holds it, with
/// the repository's programs switched off. Starting failures, timeouts and Ctrl+C are errors;
/// any exit code is returned.
pub(super) fn exit(ctx: &ToolContext, args: &[&str]) -> Result<Exit, String> {
    let program = ctx
        .find_program("git")
        .ok_or("git is not installed. Install it with: sudo apt install git")?;
    let pinned = pin(&ctx.working_dir())?;
    let mut settings: Vec<(String, String)> = OVERRIDES
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
    settings.extend(drivers_off(&configuration(ctx, &program, &pinned)?));
    let mut command = command(ctx, &program, &pinned, &settings)?;
    command.args(args);
    process::run_program(command, "git", TIMEOUT, &ctx.cancel)
}

/// git with `settings` as command-line configuration, pinned to `pinned`, confined to writing
/// in its work tree and git directories. The settings go in GIT_CONFIG_KEY_n and
/// GIT_CONFIG_VALUE_n rather than `-c key=value`, which would split a driver name holding `=`
/// in the wrong place.
fn command(
    ctx: &ToolContext,
    program: &std::path::Path,
    pinned: &Pinned,
    settings: &[(String, String)],
) -> Result<Command, String> {
    let paths = Paths {
        writes: vec![
            pinned.work_tree.clone(),
            pinned.git_dir.clone(),
            pinned.common_dir.clone(),
        ],
        reads: Vec::new(),
    };
    let mut command = ctx.program(program, paths)?;
    command
        .arg("--no-pager")
        .current_dir(ctx.working_dir())
        .env("GIT_DIR", &pinned.git_dir)
        .env("GIT_WORK_TREE", &pinned.work_tree)
        .env("GIT_COMMON_DIR", &pinned.common_dir)
        // A path the model names is a path, never pathspec magic (`:/x` is the top's x).
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env_remove("GIT_NAMESPACE")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_ASKPASS")
        .env_remove("SSH_ASKPASS")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", "true")
        .env("GIT_SEQUENCE_EDITOR", "true")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_CONFIG_COUNT", settings.len().to_string());
    for (n, (key, value)) in settings.iter().enumerate() {
        command
            .env(format!("GIT_CONFIG_KEY_{n}"), key)
            .env(format!("GIT_CONFIG_VALUE_{n}"), value);
    }
    Ok(command)
}

/// Every setting git sees here, with its scope (`git config --list --show-scope --null`).
fn configuration(
    ctx: &ToolContext,
    program: &std::path::Path,
    pinned: &Pinned,
) -> Result<String, String> {
    let settings: Vec<(String, String)> = OVERRIDES
        .iter()
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect();
    let mut command = command(ctx, program, pinned, &settings)?;
    command.args(["config", "--list", "--show-scope", "--null"]);
    let limits = RunLimits {
        timeout: TIMEOUT,
        output_cap: CONFIG_CAP,
        cancel: &ctx.cancel,
        input: None,
        watch: None,
    };
    let run = process::run(command, limits).map_err(|e| format!("Could not run git: {e}."))?;
    match run.ending {
        Ending::Exited(0) if run.omitted == 0 => Ok(run.output),
        Ending::Exited(0) => Err(format!(
            "The repository's git configuration is over {} MB, too much to check for programs it would run; look at .git/config with read_file.",
            CONFIG_CAP >> 20
        )),
        Ending::Exited(_) | Ending::Signalled(_) => Err(format!(
            "git cannot read the repository's configuration:\n{}",
            run.output.trim_end()
        )),
        Ending::TimedOut => Err(format!(
            "git did not finish reading its configuration within {}s (does .git/config include a file that never ends?).",
            TIMEOUT.as_secs()
        )),
        Ending::Cancelled => Err(format!(
            "git was cancelled by the user ({}).",
            ctx.cancel.how()
        )),
    }
}

/// The settings that switch off every filter and diff driver that the repository's own
/// configuration defines (filters run on add, status, diff, blame and checkout; textconv on
/// diff and blame), and every hook defined in configuration, whoever defined it. Drivers
/// from the user's own (global or system) configuration, such as git-lfs, keep working.
fn drivers_off(listing: &str) -> Vec<(String, String)> {
    let mut off: Vec<(String, String)> = Vec::new();
    let mut scope = "";
    for piece in listing.split('\0') {
        let Some(key) = piece.split('\n').next().filter(|key| key.contains('.')) else {
            scope = piece; // scopes never hold a dot, keys always do
            continue;
        };
        let theirs = !matches!(scope, "global" | "system" | "command");
        scope = "";
        let (Some((section, rest)), Some((_, variable))) =
            (key.split_once('.'), key.rsplit_once('.'))
        else {
            continue;
        };
        let Some((name, _)) = rest.rsplit_once('.') else {
            continue; // no subsection: not a driver
        };
        let settings: &[(&str, &str)] = match (section.to_ascii_lowercase().as_str(), variable) {
            ("filter", _) if theirs => &[
                ("clean", ""),
                ("smudge", ""),
                ("process", ""),
                ("required", "false"),
            ],
            ("diff", "textconv" | "command") if theirs => &[("textconv", "cat")],
            ("hook", _) => &[("enabled", "false"), ("event", "")],
            _ => &[],
        };
        for (variable, value) in settings {
            let setting = (format!("{section}.{name}.{variable}"), value.to_string());
            if !off.contains(&setting) {
                off.push(setting);
            }
        }
    }
    off
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn drivers_of_the_repository_and_every_configured_hook_are_switched_off() {
        let listing = [
            "global\0filter.lfs.process\ngit-lfs filter-process",
            "global\0diff.pdf.textconv\npdftotext",
            "local\0filter.evil.clean\ntouch x",
            "local\0filter.evil.smudge\ntouch y",
            "local\0filter.a.b=c.process\nx",
            "worktree\0diff.img.textconv\nexif",
            "local\0diff.ext.command\nrun",
            "local\0merge.ours.driver\ntrue",
            "global\0hook.lint.command\nlint",
            "local\0hook.Spell.event\ncommit-msg",
            "local\0core.bare\nfalse",
            "local\0filter.noname",
            "garbled\0filter.odd.clean",
            "",
        ]
        .join("\0");
        assert_eq!(
            drivers_off(&listing),
            pairs(&[
                ("filter.evil.clean", ""),
                ("filter.evil.smudge", ""),
                ("filter.evil.process", ""),
                ("filter.evil.required", "false"),
                ("filter.a.b=c.clean", ""),
                ("filter.a.b=c.smudge", ""),
                ("filter.a.b=c.process", ""),
                ("filter.a.b=c.required", "false"),
                ("diff.img.textconv", "cat"),
                ("diff.ext.textconv", "cat"),
                ("hook.lint.enabled", "false"),
                ("hook.lint.event", ""),
                ("hook.Spell.enabled", "false"),
                ("hook.Spell.event", ""),
                ("filter.odd.clean", ""),
                ("filter.odd.smudge", ""),
                ("filter.odd.process", ""),
                ("filter.odd.required", "false"),
            ])
        );
    }

    #[test]
    fn a_key_without_its_scope_counts_as_the_repository_s() {
        // Should stderr ever get mixed in, the benefit of the doubt goes to switching off.
        let listing = "warning: something\0filter.x.clean\nrun\0";
        assert_eq!(drivers_off(listing)[0], pairs(&[("filter.x.clean", "")])[0]);
    }
}
