//! Asking the person at the terminal: multiple-choice questions, approvals and input forms,
//! drawn as plain lines that fit an 80-column terminal over SSH. Arrow keys or digits move,
//! Space toggles in a multi-select, Enter confirms, Esc closes an input form, Ctrl+C cancels
//! the turn; a dumb terminal gets typed numbers instead. A question presented as a
//! questionnaire is a block of its own under a heading; one presented in its tool's block sits
//! under the tool's line.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

mod approval;
mod blocks;
mod form;
mod input;
mod layout;
mod questions;
mod typed;

use super::keys::{Key, RawMode};
use super::output::Out;
use super::sanitize::sanitize;
use super::style::Style;
use crate::interact::numbered::{self, OwnWords};
use crate::interact::{Choice, Presentation, Prompt, Request, Response};

/// Why a question ended without an answer.
enum Stop {
    TimedOut,
    Cancelled,
    /// The interview was answered in the browser meanwhile.
    Elsewhere,
    /// The question closed while it was shown: why (the turn ended, another surface answered).
    Withdrawn(String),
    /// Esc closed the input form: the tool hears it dismissed, the turn goes on.
    Dismissed,
}

impl From<Stop> for Response {
    fn from(stop: Stop) -> Response {
        match stop {
            Stop::TimedOut => Response::TimedOut,
            Stop::Cancelled => Response::Cancelled,
            Stop::Elsewhere => Response::Shown,
            Stop::Withdrawn(_) => Response::Cancelled,
            Stop::Dismissed => Response::Dismissed,
        }
    }
}

pub(crate) struct Asker<'a> {
    pub out: &'a mut Out,
    pub style: Style,
    /// TERM=dumb: no cursor movement, answers typed as numbers.
    pub dumb: bool,
    /// Set while the interview is answered here and may be answered in the browser too:
    /// reading keys stops once it is.
    pub elsewhere: Option<Arc<AtomicBool>>,
    /// Set, with the reason, when the question is no longer open: reading keys stops.
    pub withdrawn: Option<Arc<OnceLock<String>>>,
    /// Columns every row is moved right by: the fields of a form in its tool's block sit
    /// under the tool's line.
    margin: usize,
    /// Esc closes what is asked (an input form); elsewhere it does nothing.
    dismissable: bool,
}

impl<'a> Asker<'a> {
    /// Asks on `out`, in `style`; `dumb`: TERM=dumb.
    pub(crate) fn new(out: &'a mut Out, style: Style, dumb: bool) -> Self {
        Self {
            out,
            style,
            dumb,
            elsewhere: None,
            withdrawn: None,
            margin: 0,
            dismissable: false,
        }
    }
}

impl Asker<'_> {
    /// Raw mode while it lives, on a terminal that is not dumb; `None` where keys are read
    /// in the terminal's own line mode.
    fn raw_mode(&self) -> Option<RawMode> {
        match self.dumb {
            true => None,
            false => RawMode::enable(),
        }
    }

    /// Shows `prompt` and returns what the person did before its deadline.
    pub(crate) fn ask(&mut self, prompt: &Prompt) -> Response {
        let deadline = Instant::now() + prompt.timeout;
        // Raw from the first row drawn to the answer: keys typed while a heading or a field's
        // hint is shown wait for the field instead of being echoed by the terminal's line
        // mode between fields (each field turns raw mode on again inside this).
        let _raw = self.raw_mode();
        self.out.end_line();
        if prompt.presentation == Presentation::Questionnaire {
            self.questionnaire(prompt);
        }
        if let Some(error) = &prompt.error {
            self.failed(&sanitize(error));
        }
        let result = match &prompt.request {
            Request::Questions(questions) => self.questions(questions, deadline),
            Request::Approval(approval) => self.approval(approval, &prompt.completed, deadline),
            Request::Form(form) => self.form(form, deadline),
            Request::Input(form) => self.input(form, prompt, deadline),
        };
        let response = result.unwrap_or_else(|stop| {
            match &stop {
                Stop::TimedOut => self.note("(no answer in time)"),
                Stop::Cancelled => self.outcome(false, "cancelled"),
                Stop::Elsewhere => self.note("(answered in the browser)"),
                Stop::Withdrawn(why) => self.note(&format!("({})", sanitize(why))),
                Stop::Dismissed => {
                    self.outcome(false, &crate::interact::describe(&Response::Dismissed))
                }
            }
            stop.into()
        });
        // ask_user's answers are shown as each is given; a view of the tool's own comes after.
        let own_view = prompt.completed != crate::interact::CompletedView::default();
        if let (Request::Questions(_), Response::Answers(_), true) =
            (&prompt.request, &response, own_view)
        {
            self.completed(prompt, &response, true);
        }
        self.margin = 0;
        self.dismissable = false;
        response
    }

    /// What an answered question shows (the tool's completed view), as its outcome.
    fn completed(&mut self, prompt: &Prompt, response: &Response, good: bool) {
        let lines = prompt.completed.render(&prompt.request, response);
        self.outcome(good, &sanitize(&lines.join("\n")));
    }

    /// A question presented as a questionnaire: a block of its own, under a heading (the
    /// form's prompt, or who asks: Marvin for ask_user, else the tool).
    fn questionnaire(&mut self, prompt: &Prompt) {
        let text = match &prompt.request {
            Request::Input(form) if !form.prompt.is_empty() => form.prompt.clone(),
            // ask_user's questions are the model's own.
            _ if matches!(prompt.tool.as_str(), "" | "ask_user") => "Marvin asks".to_string(),
            _ => format!("{} asks", prompt.tool),
        };
        let style = self.style;
        self.line("");
        self.hang("  ", "  ", &sanitize(&text), |row| style.bold(row));
        let rule = layout::width(&text).clamp(3, self.columns().saturating_sub(2));
        self.line(&format!(
            "  {}",
            style.dim(&style.glyph("─", "-").repeat(rule))
        ));
    }

    /// The widest row, less the margin.
    fn columns(&self) -> usize {
        layout::columns().saturating_sub(self.margin).max(20)
    }

    fn line(&mut self, text: &str) {
        if self.margin > 0 && !text.is_empty() {
            self.out.write(&" ".repeat(self.margin));
        }
        self.out.write(text);
        self.out.write("\n");
    }

    /// `text` after `lead` (`shown_lead` is how it looks, painted), wrapped to the columns
    /// with later rows under the first; each row of `text` painted by `paint`.
    fn hang(&mut self, lead: &str, shown_lead: &str, text: &str, paint: impl Fn(&str) -> String) {
        let (indent, rows) = layout::hanging(layout::width(lead), text, self.columns());
        for (i, row) in rows.iter().enumerate() {
            let before = match i {
                0 => shown_lead.to_string(),
                _ => " ".repeat(indent),
            };
            self.line(&format!("{before}{}", paint(row)));
        }
    }

    /// A dim remark, wrapped.
    fn note(&mut self, text: &str) {
        let style = self.style;
        self.hang("  ", "  ", text, |row| style.dim(row));
    }

    /// How a question or an approval ended: ✓ answered or allowed, ✗ denied or cancelled
    /// (the mark in red).
    fn outcome(&mut self, good: bool, text: &str) {
        let style = self.style;
        let mark = match good {
            true => style.glyph("✓", "ok"),
            false => style.glyph("✗", "x"),
        };
        let lead = format!("  {mark} ");
        let (indent, rows) = layout::hanging(layout::width(&lead), text, self.columns());
        for (i, row) in rows.iter().enumerate() {
            let shown = match (i, good) {
                (0, true) => style.dim(&format!("{lead}{row}")),
                (0, false) => format!("{}{}", style.red(&lead), style.dim(row)),
                _ => format!("{}{}", " ".repeat(indent), style.dim(row)),
            };
            self.line(&shown);
        }
    }

    /// Why an answer was not taken, in red above the question asked again.
    fn failed(&mut self, text: &str) {
        let style = self.style;
        let lead = format!("  {} ", style.glyph("✗", "x"));
        self.hang(&lead, &style.red(&lead), text, |row| style.red(row));
    }

    /// The first line of a question or an approval: `[tag]` and the text, bold.
    fn title(&mut self, tag: &str, text: &str) {
        let style = self.style;
        let tag = format!("[{}]", sanitize(tag));
        let lead = format!("  {tag} ");
        let shown = format!("  {} ", style.cyan(&tag));
        self.hang(&lead, &shown, &sanitize(text), |row| style.bold(row));
    }

    /// The chosen items (one, or several with `multi`).
    fn pick(
        &mut self,
        items: &[Choice],
        multi: bool,
        deadline: Instant,
    ) -> Result<Vec<usize>, Stop> {
        self.pick_from(items, multi, &[], OwnWords::Not, deadline)
    }

    /// [`Self::pick`] with `preset` chosen to start with (the cursor on the first of them);
    /// `own` says how the person gives their own words (for a typed number that is no option).
    fn pick_from(
        &mut self,
        items: &[Choice],
        multi: bool,
        preset: &[usize],
        own: OwnWords,
        deadline: Instant,
    ) -> Result<Vec<usize>, Stop> {
        let Some(_raw) = self.raw_mode() else {
            return self.pick_typed(items, multi, own, deadline);
        };
        let mut cursor = preset.first().copied().unwrap_or(0);
        let mut chosen: Vec<bool> = (0..items.len())
            .map(|i| multi && preset.contains(&i))
            .collect();
        let mut drawn = 0;
        loop {
            drawn = self.draw(items, cursor, &chosen, multi, drawn);
            let key = self.key(deadline).inspect_err(|_| self.erase(drawn));
            match key? {
                Key::Up => cursor = cursor.checked_sub(1).unwrap_or(items.len() - 1),
                Key::Down => cursor = (cursor + 1) % items.len(),
                Key::Char(c) if c.is_ascii_digit() => {
                    let n = c.to_digit(10).unwrap_or(0) as usize;
                    if (1..=items.len()).contains(&n) {
                        cursor = n - 1;
                    }
                }
                Key::Space if multi => chosen[cursor] = !chosen[cursor],
                Key::Enter => {
                    self.erase(drawn);
                    if !multi || !chosen.contains(&true) {
                        return Ok(vec![cursor]);
                    }
                    return Ok((0..items.len()).filter(|i| chosen[*i]).collect());
                }
                Key::CtrlC | Key::CtrlD | Key::Closed => {
                    self.erase(drawn);
                    return Err(Stop::Cancelled);
                }
                Key::Timeout => {
                    self.erase(drawn);
                    return Err(Stop::TimedOut);
                }
                _ => {}
            }
        }
    }

    /// Draws the options (over the previous drawing of `drawn` rows): labels in one column,
    /// descriptions in the next, then the keys; returns the rows drawn.
    fn draw(
        &mut self,
        items: &[Choice],
        cursor: usize,
        chosen: &[bool],
        multi: bool,
        drawn: usize,
    ) -> usize {
        self.erase(drawn);
        let style = self.style;
        let digits = items.len().to_string().len();
        let leads: Vec<String> = (0..items.len())
            .map(|i| {
                let pointer = match i == cursor {
                    true => style.glyph("›", ">"),
                    false => " ",
                };
                let mark = match (multi, chosen[i]) {
                    (false, _) => "",
                    (true, true) => "[x] ",
                    (true, false) => "[ ] ",
                };
                format!("  {pointer} {:>digits$}. {mark}", i + 1)
            })
            .collect();
        let mut rows = 0;
        for (i, option) in self.option_rows(items, &leads).into_iter().enumerate() {
            for text in option {
                let (label, description) = text;
                let label = match i == cursor {
                    true => style.bold(&label),
                    false => label,
                };
                let description = match description.is_empty() {
                    true => String::new(),
                    false => format!("  {}", style.dim(&description)),
                };
                self.line(&format!("{label}{description}"));
                rows += 1;
            }
        }
        let (arrows, dot) = (style.glyph("↑↓", "Up/Down"), style.glyph("·", "|"));
        let keys = match multi {
            true => format!("Space toggles {dot} Enter confirms"),
            false => "Enter chooses".to_string(),
        };
        let close = match self.dismissable {
            true => format!(" {dot} Esc closes the form"),
            false => String::new(),
        };
        let hint = format!(
            "{arrows} or 1-{} move {dot} {keys}{close} {dot} Ctrl+C cancels",
            items.len().min(9)
        );
        for row in layout::wrap(&hint, self.columns() - 4) {
            self.line(&format!("    {}", style.dim(&row)));
            rows += 1;
        }
        self.out.flush();
        rows
    }

    /// The rows of each option after its lead (`leads[i]`, the same width for all): the
    /// label part (lead included on the first row) and the description part.
    fn option_rows(&self, items: &[Choice], leads: &[String]) -> Vec<Vec<(String, String)>> {
        let shown: Vec<(String, String)> = items
            .iter()
            .map(|item| {
                let label = sanitize(&item.label).into_owned();
                (label, sanitize(&item.description).into_owned())
            })
            .collect();
        let pairs: Vec<(&str, &str)> = shown
            .iter()
            .map(|(l, d)| (l.as_str(), d.as_str()))
            .collect();
        let lead = leads.first().map_or(0, |lead| layout::width(lead));
        let options = layout::options(&pairs, lead, self.columns());
        options
            .into_iter()
            .zip(leads)
            .map(|(rows, first)| {
                rows.into_iter()
                    .enumerate()
                    .map(|(r, row)| {
                        let before = if r == 0 {
                            first.clone()
                        } else {
                            " ".repeat(lead)
                        };
                        (format!("{before}{}", row.label), row.description)
                    })
                    .collect()
            })
            .collect()
    }

    /// Moves up over `lines` drawn lines and clears them.
    fn erase(&mut self, lines: usize) {
        if lines > 0 {
            self.out.write(&format!("\x1b[{lines}A\r\x1b[J"));
        }
    }

    /// Numbered options and a typed answer, for terminals that cannot move the cursor. A
    /// number that is no option is refused as every surface refuses it (`numbered`).
    fn pick_typed(
        &mut self,
        items: &[Choice],
        multi: bool,
        own: OwnWords,
        deadline: Instant,
    ) -> Result<Vec<usize>, Stop> {
        let digits = items.len().to_string().len();
        let leads: Vec<String> = (0..items.len())
            .map(|i| format!("    {:>digits$}. ", i + 1))
            .collect();
        for option in self.option_rows(items, &leads) {
            for (label, description) in option {
                match description.is_empty() {
                    true => self.line(label.trim_end()),
                    false => self.line(&format!("{label}  {description}")),
                }
            }
        }
        let ask = if multi {
            "  Numbers, separated by commas: "
        } else {
            "  Number: "
        };
        loop {
            self.out.write(&" ".repeat(self.margin));
            self.out.write(ask);
            self.out.flush();
            let typed = self.read_line(deadline)?;
            let numbers: Option<Result<Vec<usize>, String>> = typed
                .split([',', ' '])
                .filter(|t| !t.is_empty())
                .map(|t| numbered::option_number(t, items.len(), own))
                .collect();
            match numbers {
                Some(Ok(picked)) if !picked.is_empty() && (multi || picked.len() == 1) => {
                    return Ok(picked);
                }
                Some(Err(why)) => self.line(&format!("  {why}")),
                _ => self.line(&format!(
                    "  Please type {} between 1 and {}.",
                    if multi { "numbers" } else { "a number" },
                    items.len()
                )),
            }
        }
    }
}
