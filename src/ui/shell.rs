//! The shell escape (`!COMMAND`, and every line in shell mode): bash runs the line with the
//! terminal, in the working directory the tools use, and where a `cd` leaves it becomes that
//! directory for the next `!` command and the tools alike, when the tools may work there.

use std::ffi::OsStr;
use std::io::{PipeReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use super::repl::Repl;
use super::sanitize::sanitize;
use super::width::wrap;
use crate::tools::Workspace;

/// The descriptor bash tells its last directory on as it exits; the command may use 3 to 8.
const REPORT_FD: i32 = 9;

/// Runs `command`, says how it failed if it did, and follows its `cd`.
pub(crate) fn run(repl: &mut Repl<'_>, command: &str) {
    let style = repl.view.style();
    let (status, ended_in) = match run_reporting(command, &repl.session.working_dir()) {
        Ok(ran) => ran,
        Err(error) => {
            repl.view
                .side_line(&style.red(&format!("cannot run bash: {error}")));
            return;
        }
    };
    if !status.success() {
        let code = status
            .code()
            .map_or("by a signal".into(), |c| c.to_string());
        repl.view.side_line(&style.dim(&format!("(exit {code})")));
    }
    if let Some(dir) = ended_in {
        if let Err(why) = follow(repl.session.workspace(), &dir) {
            let width = super::width::terminal_width().min(80);
            let why = wrap("", &sanitize(&why), 0, width);
            repl.view.side_line(&style.yellow(&why));
        }
    }
}

/// Runs `command` in bash in `dir` with the terminal; its exit status and the directory the
/// shell ended in (`pwd -P`), when it told (not after `exec`, a syntax error, or its own
/// EXIT trap).
fn run_reporting(command: &str, dir: &Path) -> std::io::Result<(ExitStatus, Option<PathBuf>)> {
    let (reader, writer) = std::io::pipe()?;
    let write_fd = writer.as_raw_fd();
    // On the command's own line, so that its line numbers in bash's messages stay right.
    let script = format!("trap 'builtin pwd -P >&{REPORT_FD}' EXIT; {command}");
    // The person's own `!command` at the prompt: theirs to run as they would in their shell.
    #[allow(clippy::disallowed_methods)]
    let mut bash = Command::new("bash");
    bash.arg("-c").arg(script).current_dir(dir);
    // SAFETY: between fork and exec only dup2 and fcntl run, which are async-signal-safe.
    unsafe {
        bash.pre_exec(move || keep_open_as(write_fd, REPORT_FD));
    }
    let status = bash.status();
    drop(writer);
    Ok((status?, last_directory(reader)))
}

/// In the child: `fd` (close-on-exec) open as `target` across exec.
fn keep_open_as(fd: i32, target: i32) -> std::io::Result<()> {
    // SAFETY: plain descriptor calls on descriptors this process owns.
    let ok = unsafe {
        if fd == target {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) == 0
        } else {
            libc::dup2(fd, target) == target
        }
    };
    if ok {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The last line bash wrote on the report pipe. Read without waiting: a job the command left
/// in the background may hold the pipe open, but bash wrote before it exited.
fn last_directory(mut reader: PipeReader) -> Option<PathBuf> {
    let fd = reader.as_raw_fd();
    // SAFETY: setting a status flag on our own descriptor.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return None;
        }
    }
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(n) = reader.read(&mut buffer) {
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..n]);
    }
    let line = bytes.strip_suffix(b"\n")?.rsplit(|b| *b == b'\n').next()?;
    line.starts_with(b"/")
        .then(|| PathBuf::from(OsStr::from_bytes(line)))
}

/// Makes `dir` (where the shell ended, a physical path) the working directory of the tools
/// and of the next `!` command, when it lies inside the directory Marvin was started in, as
/// `set_working_dir` requires; otherwise leaves it and says why, for the person.
fn follow(workspace: &Workspace, dir: &Path) -> Result<(), String> {
    let current = workspace.current();
    if canonical(&current) == dir {
        return Ok(());
    }
    let root = workspace.root();
    let stays = format!("!commands and the tools stay in {}", current.display());
    let Ok(inside) = dir.strip_prefix(canonical(root)) else {
        return Err(format!(
            "{} is outside {}, where the tools may work: {stays}. To work in {0}, start Marvin \
             there (or with --working-dir {0}).",
            dir.display(),
            root.display()
        ));
    };
    if crate::tools::kit::paths::is_tickets(inside) {
        return Err(format!(".tickets/ is for the tk tool only: {stays}."));
    }
    workspace.set_current(root.join(inside));
    Ok(())
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    #[test]
    fn the_directory_a_command_ends_in_is_reported() {
        let dir = TempDir::new("shell-report");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let real = canonical(dir.path());
        let cases: &[(&str, Option<PathBuf>, bool)] = &[
            ("true", Some(real.clone()), true),
            ("cd sub", Some(real.join("sub")), true),
            ("cd sub && exit 3", Some(real.join("sub")), false),
            (
                "cd sub; sleep 60 & echo $! > ../job",
                Some(real.join("sub")),
                true,
            ),
            ("exec true", None, true),
            ("cd sub; (", None, false),
        ];
        for (command, expected, success) in cases {
            let (status, ended) = run_reporting(command, dir.path()).unwrap();
            assert_eq!(&ended, expected, "{command}");
            assert_eq!(status.success(), *success, "{command}");
        }
        // The job left running held the pipe open; it was not waited for.
        let job = std::fs::read_to_string(dir.path().join("job")).unwrap();
        #[allow(clippy::disallowed_methods)]
        Command::new("kill").arg(job.trim()).status().unwrap();
    }

    #[test]
    fn the_tools_follow_a_cd_only_where_they_may_work() {
        let dir = TempDir::new("shell-follow");
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::create_dir(dir.path().join(".tickets")).unwrap();
        let real = canonical(dir.path());
        let workspace = Workspace::new(dir.path().to_path_buf());
        follow(&workspace, &real.join("a/b")).unwrap();
        assert_eq!(workspace.current(), dir.path().join("a/b"));
        follow(&workspace, &real).unwrap();
        assert_eq!(workspace.current(), dir.path());
        follow(&workspace, &real.join("a")).unwrap();
        let outside = follow(&workspace, Path::new("/")).unwrap_err();
        assert_eq!(
            outside,
            format!(
                "/ is outside {}, where the tools may work: !commands and the tools stay in {}. \
                 To work in /, start Marvin there (or with --working-dir /).",
                dir.path().display(),
                dir.path().join("a").display()
            )
        );
        let tickets = follow(&workspace, &real.join(".tickets")).unwrap_err();
        assert!(
            tickets.starts_with(".tickets/ is for the tk tool only: "),
            "{tickets}"
        );
        assert_eq!(workspace.current(), dir.path().join("a"));
    }
}
