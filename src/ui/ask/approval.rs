//! An approval at the terminal: what the tool wants to do (the command, or the change as a
//! coloured diff), then the choices (only the scopes the tool offers), each saying how far it
//! reaches, and how it ended, as the tool's completed view says.

use std::time::Instant;

use super::{Asker, Stop, layout};
use crate::interact::{Approval, Choice, CompletedView, Request, Response, Scope};
use crate::ui::sanitize::sanitize;

/// Stands for a carriage return in a diff until it is drawn (`^M`): a private-use character,
/// which the sanitiser keeps and no file is likely to hold.
const CR: &str = "\u{e00d}";

impl Asker<'_> {
    pub(super) fn approval(
        &mut self,
        approval: &Approval,
        view: &CompletedView,
        deadline: Instant,
    ) -> Result<Response, Stop> {
        let summary = crate::interact::shown_after_tag(&approval.tool, &approval.summary);
        self.title(&approval.tool, summary);
        self.detail(approval);
        let choices = self.choices(approval);
        let items: Vec<Choice> = choices
            .iter()
            .map(|(label, _)| Choice {
                label: label.clone(),
                description: String::new(),
            })
            .collect();
        let picked = self.pick(&items, false, deadline)?[0];
        let response = match choices[picked].1 {
            Some(scope) => Response::Approved(scope),
            None => Response::Denied(self.text("  What should Marvin do instead? ", deadline)?),
        };
        let shown = view.render(&Request::Approval(approval.clone()), &response);
        let allowed = matches!(response, Response::Approved(_));
        self.outcome(allowed, &sanitize(&shown.join("\n")));
        if response == Response::Approved(Scope::AllEdits) {
            self.note(
                "File edits go ahead without asking for the rest of this session, as with --permission-mode accept-edits; commands still ask.",
            );
        }
        Ok(response)
    }

    /// The command (bold) or the diff (coloured), indented, each line broken into rows that
    /// fit without losing a character. In a diff a carriage return shows as a dim `^M`, as
    /// `git diff` shows it through `less`, so a line that only changed its line end is seen.
    fn detail(&mut self, approval: &Approval) {
        let style = self.style;
        let diff = approval.detail.contains("\n@@");
        let text = match diff {
            true => approval.detail.replace('\r', CR),
            false => approval.detail.clone(),
        };
        for line in sanitize(&text).lines() {
            let paint = |row: &str| match line.chars().next() {
                _ if !diff => style.bold(row),
                Some('+') if !line.starts_with("+++") => style.paint_green(row),
                Some('-') if !line.starts_with("---") => style.red(row),
                Some('@') => style.cyan(row),
                Some('\\') => style.dim(row),
                _ => row.to_string(),
            };
            let room = layout::full_columns() - 4 - line.matches(CR).count();
            for row in layout::wrap_exact(line, room) {
                let parts: Vec<String> = row
                    .split(CR)
                    .map(|part| match part.is_empty() {
                        true => String::new(),
                        false => paint(part),
                    })
                    .collect();
                self.line(&format!("    {}", parts.join(&style.dim("^M"))));
            }
        }
    }

    /// The choices the tool offers, each with what it grants (`None`: no, with what to do
    /// instead, always offered). "Allow all file edits" only for a file edit asked in the
    /// `default` mode.
    fn choices(&self, approval: &Approval) -> Vec<(String, Option<Scope>)> {
        let covers = sanitize(&approval.covers).replace('…', self.style.glyph("…", "..."));
        let mut choices: Vec<(String, Option<Scope>)> = approval
            .offered()
            .into_iter()
            .map(|scope| {
                let label = match scope {
                    Scope::Once => "Yes, once".to_string(),
                    Scope::Session => {
                        format!("Yes, and don't ask again this session for {covers}")
                    }
                    Scope::AllEdits => "Yes, and allow all file edits in this session".into(),
                    Scope::Always => format!("Always in this project, for {covers}"),
                };
                (label, Some(scope))
            })
            .collect();
        // As before scopes were the tool's: all file edits comes before always.
        if let Some(edits) = choices.iter().position(|c| c.1 == Some(Scope::AllEdits)) {
            let always = choices.iter().position(|c| c.1 == Some(Scope::Always));
            if let Some(always) = always.filter(|always| *always < edits) {
                let moved = choices.remove(edits);
                choices.insert(always, moved);
            }
        }
        choices.push(("No, and tell Marvin what to do instead".into(), None));
        choices
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::output::Out;
    use crate::ui::style::Style;

    fn approval(scopes: Vec<Scope>, all_edits: bool) -> Approval {
        Approval {
            tool: "deploy".into(),
            summary: "Deploy v2 to prod?".into(),
            detail: String::new(),
            covers: "prod".into(),
            all_edits,
            scopes,
        }
    }

    #[test]
    fn a_carriage_return_in_a_diff_shows_as_a_dim_caret_m() {
        let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut out = Out::new(Box::new(Shared(buffer.clone())), false, false);
        let colour = Style {
            colour: true,
            unicode: true,
        };
        let mut asker = Asker::new(&mut out, colour, true);
        let mut edit = approval(vec![], true);
        edit.detail = crate::interact::diff::unified("w.txt", "a\r\nb", "a\nb");
        asker.detail(&edit);
        drop(asker);
        let shown = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
        let dim_cr = "\x1b[2m^M\x1b[0m";
        assert!(
            shown.contains(&format!("\x1b[31m-a\x1b[0m{dim_cr}\n")),
            "{shown:?}"
        );
        assert!(shown.contains("\x1b[32m+a\x1b[0m\n"), "{shown:?}");
        assert!(
            shown.contains("\x1b[2m\\ No newline at end of file\x1b[0m"),
            "{shown:?}"
        );
        assert!(!shown.contains('\r'), "{shown:?}");
    }

    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn only_the_scopes_the_tool_offers_are_choices() {
        let mut out = Out::stderr();
        let asker = Asker::new(&mut out, Style::PLAIN, true);
        let offered = |scopes, all_edits| -> Vec<Option<Scope>> {
            asker
                .choices(&approval(scopes, all_edits))
                .into_iter()
                .map(|(_, scope)| scope)
                .collect()
        };
        assert_eq!(
            offered(vec![], false),
            [
                Some(Scope::Once),
                Some(Scope::Session),
                Some(Scope::Always),
                None
            ]
        );
        assert_eq!(
            offered(vec![], true),
            [
                Some(Scope::Once),
                Some(Scope::Session),
                Some(Scope::AllEdits),
                Some(Scope::Always),
                None
            ]
        );
        assert_eq!(offered(vec![Scope::Once], false), [Some(Scope::Once), None]);
        assert_eq!(
            offered(vec![Scope::Once, Scope::Always], false),
            [Some(Scope::Once), Some(Scope::Always), None]
        );
    }
}
