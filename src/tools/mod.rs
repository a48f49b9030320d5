//! The tools: the list of built-in groups (here, with the golden test of what they declare),
//! how a tool is declared (declare.rs), the registry (what a mode offers, and `execute`, which
//! turns every failure into a sentence for the model), the schema of their parameters, the
//! context handlers get, and the tools in groups: coding/, ask/, everyday/ and users' own
//! (custom/). kit/ holds the helpers that are not tools. A group's `mod.rs` is its list of
//! families: a new family is its file and one line there.

pub(crate) mod ask;
pub(crate) mod coding;
pub(crate) mod context;
pub(crate) mod custom;
mod declare;
pub(crate) mod everyday;
pub(crate) mod family;
#[cfg(test)]
mod guide_example;
pub(crate) mod kit;
pub(crate) mod mcp;
mod registry;
pub(crate) mod route;
pub mod schema;
#[cfg(test)]
mod schema_conformance;
#[cfg(test)]
mod schema_props;

pub use context::{Progress, SessionTools, ToolContext, ToolSettings, Workspace};
pub use declare::{Handler, Offered, RawHandler, ToolDef};
pub(crate) use family::Family;

pub use registry::{Registry, ToolOutcome, install_panic_hook};

/// Every built-in family with its tools, in the order the model sees them: the coding group,
/// the everyday group, then the tools that ask.
fn families() -> Vec<(Family, Vec<ToolDef>)> {
    [coding::families(), everyday::families(), ask::families()]
        .into_iter()
        .flatten()
        .collect()
}

/// Every built-in tool, each in its family, in the order of [`families`].
/// tests/golden/tools.txt lists them.
/// `find_tools` last, as the registry adds it.
#[cfg(test)]
fn builtin() -> Vec<ToolDef> {
    families()
        .into_iter()
        .flat_map(|(family, tools)| tools.into_iter().map(move |t| t.in_family(family.id)))
        .chain(std::iter::once(registry::find_tools_declaration("…")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context in a mode, with a person there to answer (the tools that ask are offered).
    fn ctx(coding_mode: bool, readonly: bool) -> ToolContext {
        ToolContext {
            coding_mode,
            readonly,
            ..ToolContext::new("/".into())
        }
        .with_someone_there()
    }

    #[test]
    fn every_builtin_example_validates_and_fits_its_typed_arguments() {
        for tool in &builtin() {
            assert!(
                !tool.description.is_empty(),
                "{} has no description",
                tool.name
            );
            if let Err(problem) = tool.check_example() {
                panic!("the example of {} {problem}", tool.name);
            }
            assert!(
                tool.writes || !tool.ticket_gated,
                "{} waits for a ticket but does not write",
                tool.name
            );
        }
    }

    const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/tools.txt");

    /// The golden file's line for a tool: name, where offered, whether it writes, gated.
    fn golden_line(tool: &ToolDef) -> String {
        let writes = if tool.writes { "writes" } else { "reads" };
        let gated = if tool.ticket_gated { "gated" } else { "-" };
        let line = format!(
            "{:<20} {:<10} {:<6} {gated}",
            tool.name,
            tool.offered.label(),
            writes
        );
        line.trim_end().to_string()
    }

    /// The lines of the golden file, without its comments.
    fn golden() -> Vec<String> {
        std::fs::read_to_string(GOLDEN)
            .unwrap_or_else(|e| panic!("{GOLDEN}: {e}"))
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_builtin_tools_are_those_of_the_golden_file() {
        let actual: Vec<String> = builtin().iter().map(golden_line).collect();
        let expected = golden();
        assert!(
            actual == expected,
            "the built-in tools differ from {GOLDEN} (- file, + registry):\n{}",
            line_diff(&expected, &actual)
        );
    }

    #[test]
    fn every_schema_is_written_as_the_values_would_be() {
        for tool in builtin() {
            let written = serde_json::to_string(&schema::Schema(&tool.params)).unwrap();
            let values = serde_json::to_string(&schema::json_schema(&tool.params)).unwrap();
            assert_eq!(written, values, "{}", tool.name);
        }
    }

    #[test]
    fn each_mode_offers_the_tools_the_golden_file_says() {
        let registry = Registry::builtin();
        let modes = [(false, false), (true, false), (false, true), (true, true)];
        for (coding_mode, readonly) in modes {
            let expected: Vec<String> = golden()
                .iter()
                .filter(|line| {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    (words[1] == "everywhere" || coding_mode) && !(words[2] == "writes" && readonly)
                })
                .map(|line| line.split_whitespace().next().unwrap().to_string())
                .collect();
            assert_eq!(
                registry.names(&ctx(coding_mode, readonly)),
                expected,
                "coding mode {coding_mode}, read-only {readonly}"
            );
        }
    }

    /// The lines only in `old` (-) and only in `new` (+), in order, by longest common
    /// subsequence.
    fn line_diff(old: &[String], new: &[String]) -> String {
        let (n, m) = (old.len(), new.len());
        let mut common = vec![vec![0usize; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                common[i][j] = if old[i] == new[j] {
                    common[i + 1][j + 1] + 1
                } else {
                    common[i + 1][j].max(common[i][j + 1])
                };
            }
        }
        let (mut i, mut j, mut out) = (0, 0, String::new());
        while i < n || j < m {
            if i < n && j < m && old[i] == new[j] {
                (i, j) = (i + 1, j + 1);
            } else if j == m || (i < n && common[i + 1][j] >= common[i][j + 1]) {
                out.push_str(&format!("- {}\n", old[i]));
                i += 1;
            } else {
                out.push_str(&format!("+ {}\n", new[j]));
                j += 1;
            }
        }
        out
    }

    #[test]
    fn the_golden_diff_shows_what_was_added_and_removed() {
        let lines = |text: &str| -> Vec<String> { text.split(' ').map(str::to_string).collect() };
        assert_eq!(
            line_diff(&lines("a b c d"), &lines("a c x d")),
            "- b\n+ x\n"
        );
        assert_eq!(line_diff(&lines("a"), &lines("a")), "");
    }
}
