//! What a project's `.mcp.json` may not do, since it comes with whatever repository was
//! cloned: set a variable that decides which program runs or what it loads (an approved
//! `npx …` would run the repository's own `npx` with `PATH` set, or load its code with
//! `NODE_OPTIONS`), or fill `${VAR}` from Marvin's environment (a key handed to a server the
//! person approved for something else). The person's own `mcp.json` may do both.

/// Names (in upper case) that decide which program runs or what it loads.
const EXACT: &[&str] = &[
    "PATH",
    "HOME",
    "SHELL",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "IFS",
    "PS4",
    "PROMPT_COMMAND",
    "CDPATH",
    "CLASSPATH",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "BROWSER",
    "TMPDIR",
    "GCONV_PATH",
    "LOCPATH",
    "HOSTALIASES",
    "OPENSSL_CONF",
    "OPENSSL_MODULES",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "SSLKEYLOGFILE",
    "ELECTRON_RUN_AS_NODE",
    "VIRTUAL_ENV",
    "JAVA_HOME",
    "GOROOT",
    "GOPATH",
    "GOBIN",
    "GOFLAGS",
    "GOPROXY",
    "GOTOOLCHAIN",
    "GOENV",
    "GOSUMDB",
    "GONOSUMDB",
    "GOINSECURE",
    "GOPRIVATE",
];

/// Prefixes (upper case): the loader, the language runtimes and package managers that start
/// MCP servers (`npx`, `uvx`, `pipx`, `bunx`, `deno`, `java`, `dotnet`…), git, and the XDG
/// directories where those read their configuration.
const PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "XDG_",
    "GIT_",
    "NODE_",
    "NPM_",
    "NPX_",
    "YARN_",
    "PNPM_",
    "COREPACK_",
    "BUN_",
    "DENO_",
    "PYTHON",
    "PIP_",
    "PIPX_",
    "UV_",
    "CONDA",
    "PERL",
    "RUBY",
    "GEM_",
    "BUNDLE_",
    "LUA_",
    "JAVA_",
    "JDK_",
    "_JAVA_",
    "MAVEN_",
    "GRADLE_",
    "DOTNET_",
    "COMPLUS_",
    "CORECLR_",
    "CARGO_",
    "RUSTC",
    "RUSTUP_",
    "RUSTFLAGS",
    "PHP",
    "R_LIBS",
    "R_PROFILE",
    "R_ENVIRON",
    "TCL",
];

/// Suffixes (upper case): options handed to a runtime (`NODE_OPTIONS`, `JAVA_TOOL_OPTIONS`,
/// `MAVEN_OPTS`), libraries loaded before the program (`…_PRELOAD`), and proxies, which
/// decide where its traffic goes.
const SUFFIXES: &[&str] = &["_OPTIONS", "_OPTS", "_PRELOAD", "_PROXY"];

/// Whether a project's file may not set `name` for a server it declares.
pub(super) fn decides_what_runs(name: &str) -> bool {
    let name = name.trim().to_ascii_uppercase();
    EXACT.contains(&name.as_str())
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_changes_the_program_or_what_it_loads_is_refused_and_ordinary_settings_are_not() {
        for refused in [
            "PATH",
            "path",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "DYLD_INSERT_LIBRARIES",
            "NODE_OPTIONS",
            "NODE_PATH",
            "npm_config_registry",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "MAVEN_OPTS",
            "HTTPS_PROXY",
            "https_proxy",
            "BASH_ENV",
            "BASH_FUNC_npx%%",
            "HOME",
            "XDG_CONFIG_HOME",
            "GIT_SSH_COMMAND",
            "UV_INDEX_URL",
            "PIP_INDEX_URL",
            "RUBYOPT",
            "PERL5OPT",
            "GOFLAGS",
        ] {
            assert!(decides_what_runs(refused), "{refused}");
        }
        for allowed in [
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "API_KEY",
            "MODE",
            "LOG_LEVEL",
            "ALLOWED_DIRECTORIES",
            "PROJECT_PATH",
            "GOOGLE_API_KEY",
            "DEBUG",
            "BRAVE_API_KEY",
            "POSTGRES_URL",
        ] {
            assert!(!decides_what_runs(allowed), "{allowed}");
        }
    }
}
