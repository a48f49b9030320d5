//! An approval at the terminal: what the tool wants to do (the command, or the change as a
//! coloured diff), then the choices, each saying how far it reaches, and how it ended.

use std::time::Instant;

use super::{Asker, Stop, layout};
use crate::interact::{Approval, Choice, Response, Scope};
use crate::ui::sanitize::sanitize;

impl Asker<'_> {
    pub(super) fn approval(
        &mut self,
        approval: &Approval,
        deadline: Instant,
    ) -> Result<Response, Stop> {
        self.title(&approval.tool, &approval.summary);
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
        let shown = crate::session::describe_response(&response);
        let allowed = matches!(response, Response::Approved(_));
        self.outcome(allowed, &sanitize(&shown));
        if response == Response::Approved(Scope::AllEdits) {
            self.note(
                "File edits go ahead without asking for the rest of this session, as with --permission-mode accept-edits; commands still ask.",
            );
        }
        Ok(response)
    }

    /// The command (bold) or the diff (coloured), indented, each line broken into rows that
    /// fit without losing a character.
    fn detail(&mut self, approval: &Approval) {
        let style = self.style;
        let diff = approval.detail.contains("\n@@");
        for line in sanitize(&approval.detail).lines() {
            let paint = |row: &str| match line.chars().next() {
                _ if !diff => style.bold(row),
                Some('+') if !line.starts_with("+++") => style.paint_green(row),
                Some('-') if !line.starts_with("---") => style.red(row),
                Some('@') => style.cyan(row),
                _ => row.to_string(),
            };
            for row in layout::wrap_exact(line, layout::full_columns() - 4) {
                self.line(&format!("    {}", paint(&row)));
            }
        }
    }

    /// The choices, each with what it grants (`None`: no, with what to do instead). "Allow
    /// all file edits" only for a file edit asked in the `default` mode.
    fn choices(&self, approval: &Approval) -> Vec<(String, Option<Scope>)> {
        let covers = sanitize(&approval.covers).replace('…', self.style.glyph("…", "..."));
        let mut choices = vec![
            ("Yes, once".to_string(), Some(Scope::Once)),
            (
                format!("Yes, and don't ask again this session for {covers}"),
                Some(Scope::Session),
            ),
        ];
        if approval.all_edits {
            choices.push((
                "Yes, and allow all file edits in this session".into(),
                Some(Scope::AllEdits),
            ));
        }
        choices.extend([
            (
                format!("Always in this project, for {covers}"),
                Some(Scope::Always),
            ),
            ("No, and tell Marvin what to do instead".into(), None),
        ]);
        choices
    }
}
