//! The working directory of coding mode: `get_working_dir`, and `set_working_dir`, which moves
//! only within the directory Marvin was started in.

use serde::Deserialize;

use crate::tools::kit::paths;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const SET_DIR_PARAMS: &[Param] = &[Param::required(
    "path",
    Kind::String,
    "Directory to work in, relative to the current working directory",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/workdir",
    about: "the working directory",
    words: &[
        "working directory",
        "cd",
        "change directory",
        "switch to",
        "other project",
        "directory",
    ],
    asks: &[
        "change to the docs directory",
        "what directory are we in",
        "pwd",
        "cd into the crate",
        "switch to the other project",
        "work in the server folder",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("get_working_dir")
            .describe("Show the working directory that file paths are relative to.")
            .offered(Offered::Coding)
            .example("{}")
            .handler(get_working_dir),
        ToolDef::build("set_working_dir")
            .describe("Change the working directory that file paths, commands and git work in; it must lie inside the directory Marvin was started in.")
            .offered(Offered::Coding)
            .params(SET_DIR_PARAMS)
            .example(r#"{"path": "crates/core"}"#)
            .handler(set_working_dir),
    ]
}

#[derive(Deserialize)]
struct NoArgs {}

fn get_working_dir(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    Ok(format!(
        "Working directory: {}",
        ctx.working_dir().display()
    ))
}

#[derive(Deserialize)]
struct SetDirArgs {
    path: String,
}

fn set_working_dir(args: SetDirArgs, ctx: &ToolContext) -> Result<String, String> {
    let root = ctx.workspace.root();
    let current = ctx.working_dir();
    // Relative to the current directory, but the result must stay inside the root.
    let wanted = current.join(args.path.trim());
    let relative = wanted
        .strip_prefix(root)
        .map(|p| p.to_string_lossy().into_owned());
    let refused = || {
        format!(
            "set_working_dir only moves within {}. To work elsewhere, ask the user to start Marvin with --working-dir <dir>.",
            root.display()
        )
    };
    let target = match relative {
        Ok(relative) if relative.is_empty() => root.to_path_buf(),
        Ok(relative) => paths::resolve(root, &relative).map_err(|_| refused())?,
        Err(_) => paths::resolve(root, &args.path).map_err(|_| refused())?,
    };
    if !target.is_dir() {
        return Err(format!(
            "'{}' is not a directory. Directories here:\n{}",
            args.path.trim(),
            paths::listing(&current)
        ));
    }
    ctx.workspace.set_current(target.clone());
    Ok(format!("Working directory is now {}", target.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> ToolContext {
        ToolContext {
            coding_mode: true,
            ..ToolContext::new(std::env::temp_dir())
        }
    }

    #[test]
    fn working_dir_is_reported() {
        let text = get_working_dir(NoArgs {}, &ctx()).unwrap();
        assert_eq!(
            text,
            format!("Working directory: {}", std::env::temp_dir().display())
        );
    }

    #[test]
    fn set_working_dir_moves_within_the_root_only() {
        let root = crate::test_support::TempDir::new("set-dir");
        std::fs::create_dir_all(root.path().join("a/b")).unwrap();
        let ctx = ToolContext::new(root.path().to_path_buf());
        let moved = set_working_dir(SetDirArgs { path: "a".into() }, &ctx).unwrap();
        assert_eq!(
            moved,
            format!(
                "Working directory is now {}",
                root.path().join("a").display()
            )
        );
        set_working_dir(SetDirArgs { path: "b".into() }, &ctx).unwrap();
        assert_eq!(ctx.working_dir(), root.path().join("a/b"));
        set_working_dir(
            SetDirArgs {
                path: "../..".into(),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(ctx.working_dir(), root.path());
        for outside in ["..", "/tmp", "a/../../.."] {
            let err = set_working_dir(
                SetDirArgs {
                    path: outside.into(),
                },
                &ctx,
            )
            .unwrap_err();
            assert!(err.contains("only moves within"), "{outside}: {err}");
        }
        assert!(
            set_working_dir(
                SetDirArgs {
                    path: "missing".into()
                },
                &ctx
            )
            .unwrap_err()
            .contains("not a directory")
        );
    }
}
