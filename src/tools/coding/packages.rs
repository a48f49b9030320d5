//! `install_packages`: `uv add [--dev]` in the working directory's Python project.

use std::time::Duration;

use serde::Deserialize;

use crate::interact::approvals::Action;
use crate::tools::kit::process;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const PARAMS: &[Param] = &[
    Param::required(
        "packages",
        Kind::StringList,
        "Package names, optionally with versions, e.g. [\"httpx\", \"pytest>=8\"]",
    ),
    Param::optional("dev", Kind::Boolean, "Add them as development dependencies"),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "coding/packages",
    about: "installing packages",
    words: &[
        "install",
        "package",
        "packages",
        "dependency",
        "dependencies",
        "pip",
        "apt",
        "npm install",
    ],
    asks: &[
        "install the requests package",
        "add this dependency",
        "pip install",
        "add httpx to the project",
        "install a library",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("install_packages")
            .describe(
                "Add Python packages to the project in the working directory with uv (uv add).",
            )
            .offered(Offered::Coding)
            .writes()
            .params(PARAMS)
            .example(r#"{"packages": ["httpx"], "dev": false}"#)
            .handler(install_packages),
    ]
}

#[derive(Deserialize)]
struct Args {
    packages: Vec<String>,
    dev: Option<bool>,
}

fn install_packages(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let packages: Vec<&str> = args
        .packages
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    if packages.is_empty() {
        return Err("Name at least one package, e.g. {\"packages\": [\"httpx\"]}.".into());
    }
    if let Some(bad) = packages.iter().find(|p| p.starts_with('-')) {
        return Err(format!("'{bad}' is not a package name."));
    }
    let uv = ctx
        .find_program("uv")
        .ok_or("uv is not installed. Install it with: pip install uv (or see https://docs.astral.sh/uv/), then try again.")?;
    let dev = if args.dev == Some(true) { " --dev" } else { "" };
    ctx.approve(Action::act(
        "install_packages",
        "install_packages wants to run:".into(),
        format!("uv add{dev} {}", packages.join(" ")),
    ))?;
    let mut command = ctx.program(uv, uv_places(ctx))?;
    command.arg("add");
    if args.dev == Some(true) {
        command.arg("--dev");
    }
    command
        .arg("--")
        .args(&packages)
        .current_dir(ctx.working_dir())
        .env_remove("GIT_DIR");
    let output = process::run_program(command, "uv add", Duration::from_secs(600), &ctx.cancel)?
        .success("uv add")?;
    Ok(format!("Added {}.\n{output}", packages.join(", ")))
}

/// Where uv keeps what it downloads, which it writes besides the project: its cache and the
/// Pythons it installs (made here when missing, so the sandbox can let uv write in them).
fn uv_places(ctx: &ToolContext) -> crate::sandbox::Paths {
    let home = ctx.settings.sandbox.user_home.clone();
    let writes: Vec<std::path::PathBuf> = home
        .iter()
        .flat_map(|home| [home.join(".cache/uv"), home.join(".local/share/uv")])
        .filter(|dir| std::fs::create_dir_all(dir).is_ok())
        .collect();
    crate::sandbox::Paths {
        writes,
        reads: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_uv_and_bad_names_say_what_to_do() {
        let ctx = ToolContext::new(std::env::temp_dir());
        let missing = install_packages(
            Args {
                packages: vec!["httpx".into()],
                dev: None,
            },
            &ctx,
        )
        .unwrap_err();
        assert!(
            missing.starts_with("uv is not installed. Install it with: pip install uv"),
            "{missing}"
        );
        assert!(
            install_packages(
                Args {
                    packages: vec![" ".into()],
                    dev: None
                },
                &ctx
            )
            .unwrap_err()
            .contains("at least one")
        );
        assert!(
            install_packages(
                Args {
                    packages: vec!["--index-url=evil".into()],
                    dev: None
                },
                &ctx
            )
            .unwrap_err()
            .contains("not a package name")
        );
    }
}
