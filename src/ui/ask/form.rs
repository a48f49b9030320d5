//! The interview at the terminal: where the form is, and, when no browser was opened here,
//! the same questions asked one by one (choices with the chooser, text and image paths typed)
//! until they are answered here or in the browser, whichever comes first.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{Asker, Stop};
use crate::interact::form::questions::{FormQuestion, Kind, Reply, ReplyValue};
use crate::interact::{Choice, FormNotice, Response, TerminalForm};
use crate::ui::sanitize::sanitize;

impl Asker<'_> {
    /// Where the form is, then the questions here when they are offered.
    pub(super) fn form(&mut self, form: &FormNotice, deadline: Instant) -> Result<Response, Stop> {
        let tag = self.style.cyan(&format!("[{}]", form.purpose.tag()));
        self.line(&format!(
            "  {tag} {}",
            self.style.bold(&sanitize(&form.title))
        ));
        let url = self.style.bold(&sanitize(&form.url));
        if form.opened {
            self.line(&format!("  Opened in your browser: {url}"));
        } else {
            self.line(&format!("  Open this address in a browser: {url}"));
        }
        if let Some(reach) = &form.reach {
            for line in sanitize(reach).lines() {
                self.line(&self.style.dim(&format!("  {line}")));
            }
        }
        let Some(terminal) = &form.terminal else {
            self.line(&self.style.dim(&format!("  {}", form.purpose.waiting())));
            return Ok(Response::Shown);
        };
        self.line(
            &self
                .style
                .dim("  Or answer here; whichever is answered first counts. Ctrl+C cancels."),
        );
        self.elsewhere = Some(terminal.answered_elsewhere.clone());
        let answers = self.form_questions(terminal, deadline);
        self.elsewhere = None;
        answers
    }

    fn form_questions(
        &mut self,
        terminal: &TerminalForm,
        deadline: Instant,
    ) -> Result<Response, Stop> {
        let mut replies = Vec::new();
        for question in &terminal.questions {
            if terminal.answered_elsewhere.load(Ordering::SeqCst) {
                return Err(Stop::Elsewhere);
            }
            let header = self.style.cyan(&format!("[{}]", sanitize(&question.id)));
            self.line(&format!(
                "  {header} {}",
                self.style.bold(&sanitize(&question.question))
            ));
            if let Some(context) = &question.context {
                self.line(&self.style.dim(&format!("  {}", sanitize(context))));
            }
            let value = match question.kind {
                Kind::Info => continue,
                Kind::Single | Kind::Multi => self.form_choice(question, deadline)?,
                Kind::Text => ReplyValue::One(self.text("  Your answer: ", deadline)?),
                Kind::Image => {
                    let path = self.text("  Path of an image file (Enter to skip): ", deadline)?;
                    ReplyValue::Many(if path.is_empty() { vec![] } else { vec![path] })
                }
            };
            self.line(&self.style.dim(&format!(
                "  ✓ {}: {}",
                sanitize(&question.id),
                sanitize(&value.joined())
            )));
            replies.push(Reply {
                id: question.id.clone(),
                value,
                attachments: Vec::new(),
            });
        }
        Ok(Response::FormAnswers(replies))
    }

    /// A choice question with the chooser: the options (recommended ones marked) and Other.
    fn form_choice(
        &mut self,
        question: &FormQuestion,
        deadline: Instant,
    ) -> Result<ReplyValue, Stop> {
        let multi = question.kind == Kind::Multi;
        let mut items: Vec<Choice> = question
            .options
            .iter()
            .map(|option| {
                let mut choice = option.clone();
                if question.recommended.contains(&option.label) {
                    choice.description = match choice.description.is_empty() {
                        true => "recommended".into(),
                        false => format!("{} (recommended)", choice.description),
                    };
                }
                choice
            })
            .collect();
        items.push(Choice {
            label: "Other".into(),
            description: "type your own answer".into(),
        });
        let other = items.len() - 1;
        let picked = self.pick(&items, multi, deadline)?;
        let mut values: Vec<String> = picked
            .iter()
            .filter(|i| **i != other)
            .map(|i| items[*i].label.clone())
            .collect();
        if picked.contains(&other) {
            let text = self.text("  Your answer: ", deadline)?;
            if !text.is_empty() {
                values.push(text);
            }
        }
        Ok(match multi {
            true => ReplyValue::Many(values),
            false => ReplyValue::One(values.into_iter().next().unwrap_or_default()),
        })
    }
}
