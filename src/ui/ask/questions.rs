//! ask_user's questions at the terminal, one after the other. Choosing "Other" and typing
//! nothing asks that same question again, with what was chosen still chosen; the answers
//! already given stay. A question asked again by its tool starts from what was entered.

use std::time::Instant;

use super::{Asker, Stop};
use crate::interact::numbered::OwnWords;
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
        let mut preset = question
            .initial
            .as_ref()
            .map_or_else(Vec::new, |answer| chosen_before(answer, &question.options));
        loop {
            let picked = self.pick_from(
                &items,
                question.multi_select,
                &preset,
                OwnWords::Chosen(items.len()),
                deadline,
            )?;
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
                preset = picked;
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

/// The places of what `answer` chose among `options` (`options.len()` is "Other").
fn chosen_before(answer: &Answer, options: &[Choice]) -> Vec<usize> {
    let place = |label: &str| {
        options
            .iter()
            .position(|o| o.label == label)
            .unwrap_or(options.len())
    };
    let mut chosen: Vec<usize> = match answer {
        Answer::One(label) => vec![place(label)],
        Answer::Other(_) => vec![options.len()],
        Answer::Many(labels) => labels
            .iter()
            .map(|l| match l.starts_with("Other:") {
                true => options.len(),
                false => place(l),
            })
            .collect(),
    };
    chosen.dedup();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_entered_before_is_chosen_again() {
        let options: Vec<Choice> = ["A", "B"]
            .map(|l| Choice {
                label: l.into(),
                description: String::new(),
            })
            .to_vec();
        let many = |labels: &[&str]| Answer::Many(labels.iter().map(|l| l.to_string()).collect());
        assert_eq!(chosen_before(&Answer::One("B".into()), &options), [1]);
        assert_eq!(chosen_before(&Answer::Other(String::new()), &options), [2]);
        assert_eq!(chosen_before(&many(&["A", "Other:"]), &options), [0, 2]);
        assert_eq!(chosen_before(&many(&["B", "Other: x"]), &options), [1, 2]);
    }
}
