//! ask_user's questions at the terminal, one after the other. Choosing "Other" and typing
//! nothing asks that same question again; the answers already given stay.

use std::time::Instant;

use super::{Asker, Stop};
use crate::interact::{Answer, Choice, EMPTY_OTHER, Question, Response};
use crate::ui::sanitize::sanitize;

impl Asker<'_> {
    pub(super) fn questions(
        &mut self,
        questions: &[Question],
        deadline: Instant,
    ) -> Result<Response, Stop> {
        let mut answers = Vec::new();
        for question in questions {
            self.title(&question.header, &question.question);
            let answer = self.answer(question, deadline)?;
            let shown = match &answer {
                Answer::One(label) => label.clone(),
                Answer::Many(labels) => labels.join(", "),
                Answer::Other(text) => format!("Other: {text}"),
            };
            let header = sanitize(&question.header);
            self.outcome(true, &format!("{header}: {}", sanitize(&shown)));
            answers.push(answer);
        }
        Ok(Response::Answers(answers))
    }

    /// One question's answer: the options picked, and the text of "Other" when it is one of
    /// them, asked until that text is not empty.
    fn answer(&mut self, question: &Question, deadline: Instant) -> Result<Answer, Stop> {
        let mut items = question.options.clone();
        items.push(Choice {
            label: "Other".into(),
            description: "type your own answer".into(),
        });
        let other = items.len() - 1;
        loop {
            let picked = self.pick(&items, question.multi_select, deadline)?;
            let mut labels: Vec<String> = picked
                .iter()
                .filter(|i| **i != other)
                .map(|i| items[*i].label.clone())
                .collect();
            if !picked.contains(&other) {
                return Ok(match question.multi_select {
                    true => Answer::Many(labels),
                    false => Answer::One(labels.remove(0)),
                });
            }
            let text = self.text("  Your answer: ", deadline)?;
            if text.is_empty() {
                self.failed(EMPTY_OTHER);
                continue;
            }
            return Ok(match question.multi_select {
                true => {
                    labels.push(format!("Other: {text}"));
                    Answer::Many(labels)
                }
                false => Answer::Other(text),
            });
        }
    }
}
