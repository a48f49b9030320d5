//! The interview at the terminal: where the form is, and, when no browser was opened here,
//! the same questions asked one by one (choices with the chooser, text and image paths typed)
//! until they are answered here or in the browser, whichever comes first. A required question
//! is asked until it is answered, and a typed image path until it names a readable picture.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{Asker, Stop, layout};
use crate::interact::form::draft::Entry;
use crate::interact::form::questions::{FormQuestion, Kind, Reply, ReplyValue, Weight};
use crate::interact::form::uploads::check_image_path;
use crate::interact::numbered::OwnWords;
use crate::interact::{Choice, EMPTY_OTHER, FormNotice, Response, TerminalForm};
use crate::ui::sanitize::sanitize;

/// Why a required question is asked again.
const NEEDS_ANSWER: &str = "This question needs an answer.";

impl Asker<'_> {
    /// Where the form is, then the questions here when they are offered.
    pub(super) fn form(&mut self, form: &FormNotice, deadline: Instant) -> Result<Response, Stop> {
        self.title(form.purpose.tag(), &form.title);
        let said = match form.opened {
            true => "Opened in your browser:",
            false => "Open this address in a browser:",
        };
        self.address(said, &sanitize(&form.url));
        if let Some(reach) = &form.reach {
            self.reach(&sanitize(reach));
        }
        let Some(terminal) = &form.terminal else {
            self.note(form.purpose.waiting());
            return Ok(Response::Shown);
        };
        self.note("Or answer here; whichever is answered first counts. Ctrl+C cancels.");
        if let Some(description) = &terminal.description {
            self.note(&sanitize(description));
        }
        self.elsewhere = Some(terminal.answered_elsewhere.clone());
        let answers = self.form_questions(terminal, deadline);
        self.elsewhere = None;
        answers
    }

    /// `said` and the address, bold: on one row when it fits, else the address on a row of
    /// its own below. An address is never broken by Marvin: one longer than the terminal
    /// (a sign-in page's) is wrapped by the terminal itself, which copies it as one line.
    fn address(&mut self, said: &str, url: &str) {
        let url_shown = self.style.bold(url);
        if 2 + layout::width(said) + 1 + layout::width(url) <= layout::full_columns() {
            self.line(&format!("  {said} {url_shown}"));
        } else {
            self.line(&format!("  {said}"));
            self.line(&format!("    {url_shown}"));
        }
    }

    /// Why no browser was opened and how to reach the form: the sentences wrapped at word
    /// boundaries to the terminal's width (they name paths), the indented command (`ssh -L
    /// …`) kept whole on its row so that it copies as one command.
    fn reach(&mut self, reach: &str) {
        let style = self.style;
        for line in reach.lines() {
            let rows = match line.starts_with([' ', '\t']) {
                true => vec![line.trim_end().to_string()],
                false => layout::wrap(line, layout::full_columns() - 2),
            };
            for row in rows {
                self.line(&style.dim(&format!("  {row}")));
            }
        }
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
            self.heading(question);
            if let Some(context) = &question.context {
                self.note(&sanitize(context));
            }
            self.blocks(question);
            if question.kind == Kind::Info {
                continue;
            }
            let value = self.form_answer(question, terminal, deadline)?;
            terminal
                .draft
                .set(&question.id, &entry_of(question, &value));
            if value.is_empty() {
                self.outcome(true, &format!("{}: (skipped)", sanitize(&question.id)));
                continue;
            }
            let shown = format!("{}: {}", sanitize(&question.id), sanitize(&value.joined()));
            self.outcome(true, &shown);
            replies.push(Reply {
                id: question.id.clone(),
                value,
                attachments: Vec::new(),
            });
        }
        Ok(Response::FormAnswers(replies))
    }

    /// A question's heading: its id in brackets (an info block, which takes no answer, has
    /// none), then the question.
    fn heading(&mut self, question: &FormQuestion) {
        if question.kind == Kind::Info {
            let style = self.style;
            self.hang("  ", "  ", &sanitize(&question.question), |row| {
                style.bold(row)
            });
            return;
        }
        let tag = match question.weight {
            Some(Weight::Critical) => format!("{} · critical", question.id),
            _ => question.id.clone(),
        };
        self.title(&tag, &question.question);
    }

    /// One question's answer, asked again (with what to change) until it fits the question:
    /// a wrong answer to one question never sends the others back.
    fn form_answer(
        &mut self,
        question: &FormQuestion,
        terminal: &TerminalForm,
        deadline: Instant,
    ) -> Result<ReplyValue, Stop> {
        loop {
            // Where the page (or an earlier try here) left this question.
            let kept = terminal.draft.entry(&question.id);
            let value = match question.kind {
                Kind::Single | Kind::Multi => self.form_choice(question, kept, deadline)?,
                Kind::Image => self.form_image(question, kept, &terminal.working_dir, deadline)?,
                _ => self.form_text(question, kept, deadline)?,
            };
            let misfit = (!value.is_empty())
                .then(|| question.misfit(&value))
                .flatten();
            match misfit {
                Some(why) => self.failed(&sanitize(&why)),
                None => return Ok(value),
            }
        }
    }

    /// A line of text; asked again while it is empty and the question is required.
    fn form_text(
        &mut self,
        question: &FormQuestion,
        kept: Option<Entry>,
        deadline: Instant,
    ) -> Result<ReplyValue, Stop> {
        let kept = match kept {
            Some(Entry::Text(text)) if !text.trim().is_empty() => Some(text),
            _ => None,
        };
        // A default the asker gave is offered as it is; anything else kept is the draft's.
        let suggested = kept.is_some() && kept == question.default;
        if let Some(text) = &kept {
            let from = match suggested {
                true => "Suggested",
                false => "From the draft",
            };
            self.note(&format!("{from}: {}", sanitize(text)));
        }
        let prompt = match suggested {
            true => "Your answer (Enter keeps the suggestion)",
            false => "Your answer",
        };
        let text = self.typed_or_kept(prompt, &kept, question.required(), deadline)?;
        Ok(ReplyValue::One(text))
    }

    /// The path of a picture, checked (it exists, can be read, is an image) before it is
    /// taken; asked again until it is, or skipped when the question is optional.
    fn form_image(
        &mut self,
        question: &FormQuestion,
        kept: Option<Entry>,
        base: &Path,
        deadline: Instant,
    ) -> Result<ReplyValue, Stop> {
        let kept = match kept {
            Some(Entry::Paths(paths)) => paths.into_iter().find(|p| !p.trim().is_empty()),
            _ => None,
        };
        if let Some(path) = &kept {
            self.note(&format!("From the draft: {}", sanitize(path)));
        }
        loop {
            let prompt = "Path of an image file";
            let typed = self.typed_or_kept(prompt, &kept, question.required(), deadline)?;
            if typed.is_empty() {
                return Ok(ReplyValue::Many(Vec::new()));
            }
            match check_image_path(&typed, base) {
                Ok(path) => return Ok(ReplyValue::Many(vec![path.display().to_string()])),
                Err(why) => self.failed(&sanitize(&why)),
            }
        }
    }

    /// A line typed after `prompt`: Enter keeps `kept` (the draft's), or skips a question that
    /// is not `required`; a required one is asked until it gets an answer.
    fn typed_or_kept(
        &mut self,
        prompt: &str,
        kept: &Option<String>,
        required: bool,
        deadline: Instant,
    ) -> Result<String, Stop> {
        let label = match (kept, required) {
            (Some(_), _) if prompt.ends_with(')') => format!("  {prompt}: "),
            (Some(_), _) => format!("  {prompt} (Enter keeps the draft's): "),
            (None, true) => format!("  {prompt}: "),
            (None, false) => format!("  {prompt} (Enter to skip): "),
        };
        loop {
            let text = match (self.text(&label, deadline)?, kept) {
                (typed, Some(text)) if typed.is_empty() => text.clone(),
                (typed, _) => typed,
            };
            if text.is_empty() && required {
                self.failed(NEEDS_ANSWER);
                continue;
            }
            return Ok(text);
        }
    }

    /// A choice question with the chooser: the options (recommended ones marked), Other, and
    /// Skip when the question is optional. Other with nothing typed asks again.
    fn form_choice(
        &mut self,
        question: &FormQuestion,
        kept: Option<Entry>,
        deadline: Instant,
    ) -> Result<ReplyValue, Stop> {
        let multi = question.kind == Kind::Multi;
        let mut items: Vec<Choice> = question
            .choices()
            .into_iter()
            .map(|option| {
                let mut choice = option;
                if question.recommended.contains(&choice.label) {
                    choice.description = match choice.description.is_empty() {
                        true => "recommended".into(),
                        false => format!("{} (recommended)", choice.description),
                    };
                }
                choice
            })
            .collect();
        // A closed question takes only its options: no "Other".
        let options = items.len();
        let other = (!question.closed).then(|| {
            items.push(Choice {
                label: "Other".into(),
                description: "type your own answer".into(),
            });
            options
        });
        let skip = (!question.required()).then(|| {
            items.push(Choice {
                label: "Skip".into(),
                description: "leave this one unanswered".into(),
            });
            items.len() - 1
        });
        let chosen = |label: &String| match &kept {
            Some(Entry::Choice { picks, .. }) => picks.contains(label),
            _ => question.preselect() && question.recommended.contains(label),
        };
        let mut preset: Vec<usize> = (0..options)
            .filter(|i| chosen(&question.options[*i].label))
            .collect();
        let kept_other = match (kept, other) {
            (
                Some(Entry::Choice {
                    other: Some(text), ..
                }),
                Some(other),
            ) => {
                preset.push(other);
                Some(text)
            }
            _ => None,
        };
        let own = other.map_or(OwnWords::Not, |at| OwnWords::Chosen(at + 1));
        loop {
            let picked = self.pick_from(&items, multi, &preset, own, deadline)?;
            if skip.is_some_and(|skip| picked.contains(&skip)) {
                return Ok(ReplyValue::Many(Vec::new()));
            }
            let mut values: Vec<String> = picked
                .iter()
                .filter(|i| **i < options)
                .map(|i| items[*i].label.clone())
                .collect();
            if other.is_some_and(|other| picked.contains(&other)) {
                let label = match kept_other.as_deref().filter(|t| !t.trim().is_empty()) {
                    Some(text) => {
                        self.note(&format!("From the draft: {}", sanitize(text)));
                        "  Your answer (Enter keeps the draft's): "
                    }
                    None => "  Your answer: ",
                };
                let text = match self.text(label, deadline)? {
                    typed if typed.is_empty() => kept_other.clone().unwrap_or_default(),
                    typed => typed,
                };
                if text.is_empty() {
                    self.failed(EMPTY_OTHER);
                    continue;
                }
                values.push(text);
            }
            return Ok(match multi {
                true => ReplyValue::Many(values),
                false => ReplyValue::One(values.into_iter().next().unwrap_or_default()),
            });
        }
    }
}

/// What the draft keeps of an answer taken here.
fn entry_of(question: &FormQuestion, value: &ReplyValue) -> Entry {
    let values: Vec<String> = match value {
        ReplyValue::One(one) if one.is_empty() => Vec::new(),
        ReplyValue::One(one) => vec![one.clone()],
        ReplyValue::Many(many) => many.clone(),
    };
    match question.kind {
        Kind::Single | Kind::Multi => {
            let is_option = |v: &String| question.options.iter().any(|o| &o.label == v);
            Entry::Choice {
                picks: values.iter().filter(|v| is_option(v)).cloned().collect(),
                other: values.into_iter().find(|v| !is_option(v)),
            }
        }
        Kind::Image => Entry::Paths(values),
        Kind::Text | Kind::Info => Entry::Text(values.join("")),
    }
}
