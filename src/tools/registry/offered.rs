//! Which tools a request offers when they come on demand (`--tools auto`): a small core, the
//! coding core in coding mode, and the families the session has needed so far, in the order
//! it first needed them; and `find_tools`, with which the model loads any other family.

use std::borrow::Cow;

use serde_json::Value;

use super::{FamilyInfo, Registry, ToolOutcome};
use crate::tools::route::{self, Chosen};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Offered, ToolContext, ToolDef};

/// The tool that finds and loads the others.
pub(crate) const FIND_TOOLS: &str = "find_tools";

/// Tools every request offers.
const CORE: &[&str] = &[FIND_TOOLS, "web_search", "ask_user"];

/// Families every request in coding mode offers: the tools of the work, and the ticket tool
/// whenever the ticket gate can refuse them (it says to call `tk`, which must then be there).
const CODING_CORE: &[&str] = &[
    "coding/tickets",
    "coding/files",
    "coding/shell",
    "coding/search",
    "coding/git",
];

/// The coding core `ctx` gets: none outside coding mode; without the tickets for a read-only
/// agent, which the gate never stops.
fn coding_core(ctx: &ToolContext) -> Vec<&'static str> {
    match ctx.coding_mode {
        false => Vec::new(),
        true => CODING_CORE
            .iter()
            .copied()
            .filter(|f| !(ctx.readonly && *f == "coding/tickets"))
            .collect(),
    }
}

/// The families whose tools ask the person something: no request offers them when nobody
/// can answer (a run with no one at a terminal and no `--on-ask`, a sub-agent), as the system
/// prompt then tells the model to carry on with its assumptions.
const ASKING: &[&str] = &["ask", "interview"];

/// Whether nobody can answer a question asked in `ctx`.
fn nobody_answers(ctx: &ToolContext) -> bool {
    ctx.interactor.is_none()
}

/// Families a message does not bring while the coding core offers one that does their work
/// (coding core family, the family): in coding mode "the ticket" is the project's, in `tk`.
/// `find_tools` still loads them.
const SHADOWED: &[(&str, &str)] = &[("coding/tickets", "tickets")];

/// The family a question of fact that asks for no other gets.
pub(super) const FALLBACK: &str = "wiki";

/// The families that answer a question of what is known: the encyclopedia, and the
/// dictionary and units (utilities: "how many ounces in a pound", "what does HTTP stand for").
const KNOWING: &[&str] = &[FALLBACK, "utilities"];

/// The most bytes of tool definitions a request should carry: past it, the families the
/// session has not used in this turn leave, all at once.
const REQUEST_TOOLS_BUDGET: usize = 12 * 1024;

/// The family a message naming a web address gets, whatever else it asks.
const WEB: &str = "web";

/// Outside coding mode, in a project: the tools that only read it (`Offered::Project`), as
/// one family of their own, asked for by words about code or by naming one of its files.
pub(crate) const PROJECT: &str = "project";

const PROJECT_WORDS: &[&str] = &[
    "code",
    "codebase",
    "source",
    "src",
    "function*",
    "method*",
    "module*",
    "class*",
    "struct*",
    "implement*",
    "defined",
    "definition",
    "project",
    "repo",
    "repository",
    "readme",
    "file",
    "files",
    "grep",
    "git",
    "commit*",
    "diff",
    "branch*",
    "blame",
    "this file",
    "the file",
    "test*",
    "bug",
    "crate",
    "package",
    "library",
    "does this",
    "what does",
    "config",
    "configuration",
    "parse",
    "parsed",
    "parser",
    "license",
    "licence",
    "plugin",
    "loader",
    "entry point",
    "dependencies",
    "error handling",
];

/// Requests about the project, as people put them.
const PROJECT_ASKS: &[&str] = &[
    "what does this code do",
    "where are the settings read",
    "explain this file",
    "the commit history of the project",
    "what changed lately",
    "what is the structure of the repository",
    "which files are in the source folder",
    "who last touched this file",
    "find where this is defined",
    "any changes not committed yet",
    "how does this part of the code work",
    "where is that value set in the source",
    "todo and fixme comments in the code",
];

/// The project family's card.
fn project_family() -> FamilyInfo {
    FamilyInfo {
        id: PROJECT.to_string(),
        about: "this project, read only: its files, code search, git status, diff and history (changes need coding mode)".to_string(),
        words: PROJECT_WORDS.iter().map(|w| w.to_string()).collect(),
        asks: PROJECT_ASKS.iter().map(|a| a.to_string()).collect(),
    }
}

/// The family a call of `tool` brings into the session: outside coding mode a tool that only
/// reads the project comes with the project family, not its coding one.
pub(super) fn family_of<'a>(tool: &'a ToolDef, ctx: &ToolContext) -> &'a str {
    if !ctx.coding_mode && tool.offered == Offered::Project {
        PROJECT
    } else {
        &tool.family
    }
}

/// Whether `tool` belongs to the family `id` as `ctx` sees it.
fn in_family(tool: &ToolDef, id: &str, ctx: &ToolContext) -> bool {
    family_of(tool, ctx) == id
}

/// The words of `text` that name a file or directory of the working directory
/// (`src/parse.rs`, `README.md`): a question about it is a question about the project.
fn names_a_path(text: &str, ctx: &ToolContext) -> Option<String> {
    let dir = ctx.working_dir();
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| "`'\"()[]{},;:?!".contains(c)))
        .map(|word| word.trim_end_matches('.'))
        .filter(|word| word.contains('/') || word.contains('.'))
        .filter(|word| !word.contains("..") && !word.starts_with('/') && word.len() < 256)
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .find(|word| dir.join(word).exists())
        .map(str::to_string)
}

/// The first word of `text` that is written as a name is in code (`parse_config`,
/// `loadPlugins`, `Config::load`, `main()`): in a project, a question about one is a question
/// about its code. Words people write that way otherwise (`e-mail`, `iPhone`, `macOS`,
/// `McDonald`) are not.
fn names_in_code(text: &str) -> Option<&str> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c: char| "`'\"[]{},;:?!.".contains(c)))
        .find(|word| {
            let letters = |part: &str| part.chars().any(char::is_alphabetic);
            let snake = word.contains('_')
                && letters(word)
                && word.chars().all(|c| c.is_alphanumeric() || c == '_');
            let path = word.split("::").filter(|part| letters(part)).count() >= 2;
            let call = word.strip_suffix("()").is_some_and(|name| {
                name.len() > 1 && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
            // Two lower-case letters or more, a capital, a lower-case letter: `loadPlugins`,
            // not `iPhone`, `macOS`, `eSIM`.
            let chars: Vec<char> = word.chars().collect();
            let first_capital = chars.iter().position(|c| c.is_uppercase());
            let camel = chars.iter().all(|c| c.is_alphanumeric())
                && first_capital.is_some_and(|at| {
                    at >= 2
                        && chars[..at].iter().all(|c| c.is_lowercase())
                        && chars.get(at + 1).is_some_and(|c| c.is_lowercase())
                });
            snake || path || call || camel
        })
}

/// Words of a tool's name that say nothing of what it is for.
const STOP: &[&str] = &[
    "get", "set", "list", "create", "update", "delete", "add", "remove", "read", "write", "run",
    "find", "search", "show", "tool", "tools", "the", "a", "an", "of", "to", "for", "by", "and",
    "or", "in", "on", "with", "new", "all", "info", "details", "item", "items", "do", "make",
];

const FIND_PARAMS: &[Param] = &[Param::required(
    "query",
    Kind::String,
    "What you need, in a few words (\"set an alarm\", \"directions to the station\"), or the name of a family or a tool",
)];

/// The declaration of `find_tools`, its description ending with the `catalogue` (a request
/// that offers tools on demand lists the families its mode may load instead).
pub(crate) fn find_tools(catalogue: &str) -> ToolDef {
    ToolDef::build(FIND_TOOLS)
        .describe(find_tools_description(catalogue))
        .offered(Offered::Everywhere)
        .params(FIND_PARAMS)
        .example(r#"{"query": "set an alarm"}"#)
        // Answered by the registry itself (it needs the catalogue): see `find_tools_call`.
        .json_handler(Box::new(|_, _| {
            Err("find_tools is answered by the registry".into())
        }))
        .in_family("core")
}

/// What `find_tools` says of itself, ending with the `catalogue` of the families it loads.
pub(crate) fn find_tools_description(catalogue: &str) -> String {
    format!(
        "Loads more tools. A request offers only some of Marvin's tools; when none of them \
         fits, ask for what you need in a few words, or for a family by its name, and the \
         tools found are offered from your next step on. Families: {catalogue}."
    )
}

impl Registry {
    /// What retrieval knows of each built-in family and of what a model answers itself
    /// (`route::TALK`), sorted by id, as `route/built.rs` holds it (made from this, see its
    /// test).
    #[cfg(test)]
    pub(super) fn built_entries(&self) -> Vec<route::Entry> {
        let mut entries: Vec<route::Entry> = self
            .families
            .iter()
            .filter(|f| !f.id.starts_with("custom:"))
            .map(|f| {
                let tools: Vec<&ToolDef> = self
                    .tools
                    .iter()
                    .filter(|t| t.family == f.id.as_str())
                    .collect();
                entry_of(f, &tools)
            })
            .collect();
        entries.push(route::made_talk());
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        entries
    }
}

/// What retrieval knows of a family: its words count most, then what it is for and its tools'
/// names, then their descriptions, then their parameters'.
fn entry_of(info: &FamilyInfo, tools: &[&ToolDef]) -> route::Entry {
    let words: Vec<&str> = info
        .words
        .iter()
        .map(|w| w.trim_start_matches('~').trim_end_matches('*'))
        .collect();
    let words = words.join(" ");
    let mut fields: Vec<(String, f64)> = vec![(words, 3.0), (info.about.clone(), 2.0)];
    fields.extend(info.asks.iter().map(|ask| (ask.clone(), 2.0)));
    for tool in tools {
        fields.push((tool.name.replace('_', " "), 2.0));
        fields.push((tool.description.to_string(), 1.0));
        for param in tool.params.iter() {
            fields.push((param.description.to_string(), 0.3));
        }
    }
    let fields: Vec<(&str, f64)> = fields.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    route::Entry::new(&info.id, &fields)
}

/// A user's own tool as a family of its own: `custom:NAME`, asked for by its name's words.
pub(super) fn own_family(tool: &ToolDef) -> FamilyInfo {
    FamilyInfo {
        id: format!("custom:{}", tool.name),
        about: first_sentence(&tool.description),
        words: name_words(&tool.name),
        asks: Vec::new(),
    }
}

/// The words of a tool's or a server's name that say what it is for, and the whole name.
fn name_words(name: &str) -> Vec<String> {
    let spaced: String = name
        .chars()
        .flat_map(|c| match c {
            '_' | '-' | '.' | ':' => vec![' '],
            c if c.is_uppercase() => vec![' ', c],
            c => vec![c],
        })
        .collect::<String>()
        .to_lowercase();
    let mut words: Vec<String> = spaced
        .split_whitespace()
        .filter(|w| w.len() > 2 && !STOP.contains(w))
        .map(str::to_string)
        .collect();
    let whole = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    if !whole.is_empty() && !words.contains(&whole) {
        words.push(whole);
    }
    words.dedup();
    words
}

fn first_sentence(text: &str) -> String {
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    text[..end].trim().to_string()
}

impl Registry {
    /// The tools `ctx`'s next request offers: all the mode allows with `--tools all`, else
    /// the core, the coding core in coding mode, then each family the session has loaded.
    pub(super) fn offered<'a>(
        &'a self,
        ctx: &ToolContext,
        remote: &'a [ToolDef],
    ) -> Vec<&'a ToolDef> {
        let allowed = self.offerable(ctx, remote);
        if !ctx.settings.on_demand {
            return allowed;
        }
        let mut families: Vec<String> = coding_core(ctx).iter().map(|f| f.to_string()).collect();
        families.extend(ctx.shared.offer.families().into_iter().map(|l| l.family));
        let mut offered: Vec<&ToolDef> = allowed
            .iter()
            .filter(|t| CORE.contains(&t.name.as_ref()))
            .copied()
            .collect();
        for family in &families {
            for tool in allowed.iter().filter(|t| in_family(t, family, ctx)) {
                if !offered.iter().any(|o| o.name == tool.name) {
                    offered.push(tool);
                }
            }
        }
        offered
    }

    /// The families `ctx`'s next request offers, each with why: everything (`--tools all`),
    /// else the core, the coding core, and what the session loaded.
    pub(crate) fn offered_families(&self, ctx: &ToolContext) -> Vec<(String, String)> {
        if !ctx.settings.on_demand {
            return vec![("all".into(), "--tools all".into())];
        }
        let mut families = vec![("core".to_string(), "always".to_string())];
        families.extend(
            coding_core(ctx)
                .iter()
                .map(|f| (f.to_string(), "coding mode".to_string())),
        );
        families.extend(
            ctx.shared
                .offer
                .families()
                .into_iter()
                .map(|l| (l.family, l.why)),
        );
        families
    }

    /// What the system prompt says of the tools: their names with `--tools all`; else how
    /// they come, and the families of the person's own (MCP servers, their tools), which
    /// `find_tools`'s list of the built-in ones does not name.
    pub(crate) fn prompt_line(&self, ctx: &ToolContext) -> String {
        let remote = self.mcp_tools();
        if !ctx.settings.on_demand {
            let names: Vec<&str> = self
                .allowed(ctx, &remote)
                .iter()
                .map(|t| t.name.as_ref())
                .collect();
            return match names.is_empty() {
                true => String::new(),
                false => format!("Tools available: {}.", names.join(", ")),
            };
        }
        let own: Vec<String> = self
            .loadable(ctx, &remote)
            .iter()
            .filter(|f| f.id.starts_with("mcp:") || f.id.starts_with("custom:"))
            .map(|f| format!("{} ({})", f.id, f.about))
            .collect();
        let mut line = format!(
            "Tools available: the ones each request offers (a few, and the families the conversation needs); {FIND_TOOLS} loads any other family (its description lists them)."
        );
        if !own.is_empty() {
            line.push_str(&format!(" The person's own families: {}.", own.join(", ")));
        }
        line
    }

    /// Whether `ctx`'s mode allows the tool `name`, offered now or not.
    pub(crate) fn allows(&self, ctx: &ToolContext, name: &str) -> bool {
        let remote = self.mcp_tools();
        self.allowed(ctx, &remote).iter().any(|t| t.name == name)
    }

    /// Offers the families of the tools `messages` called (a conversation taken up).
    pub(crate) fn remember(&self, ctx: &ToolContext, messages: &[crate::message::Message]) {
        if !ctx.settings.on_demand {
            return;
        }
        let remote = self.mcp_tools();
        for call in messages.iter().flat_map(|m| &m.tool_calls) {
            let name = call.function.name.as_str();
            if let Some(tool) = self.lookup(name, &remote).filter(|t| t.offered_in(ctx)) {
                if tool.family != "core" {
                    ctx.shared
                        .offer
                        .load(family_of(tool, ctx), &format!("{name} was called earlier"));
                }
            }
        }
    }

    /// The tools `ctx`'s requests may offer: the ones its mode allows, but none that asks the
    /// person when nobody can answer (called all the same, such a tool says so).
    fn offerable<'a>(&'a self, ctx: &ToolContext, remote: &'a [ToolDef]) -> Vec<&'a ToolDef> {
        let mut allowed = self.allowed(ctx, remote);
        if nobody_answers(ctx) {
            allowed.retain(|t| !ASKING.contains(&t.family.as_ref()));
        }
        allowed
    }

    /// The built-in families for the model: `weather (weather forecasts), …`.
    pub(super) fn catalogue(&self) -> String {
        listing(&self.families)
    }

    /// The families `ctx` may load, for the model: the mode's, without the ones its requests
    /// always offer. It changes only when what may be loaded does (an MCP server joins).
    pub(super) fn catalogue_for(&self, ctx: &ToolContext, remote: &[ToolDef]) -> String {
        listing(&self.loadable(ctx, remote))
    }

    /// The families `ctx` may load besides the ones every request has: each with a tool the
    /// mode allows, the MCP servers' among them (`mcp:NAME`).
    pub(super) fn loadable<'a>(
        &'a self,
        ctx: &ToolContext,
        remote: &[ToolDef],
    ) -> Vec<Cow<'a, FamilyInfo>> {
        let allowed = self.offerable(ctx, remote);
        let coding = coding_core(ctx);
        let core = |id: &str| id == "core" || coding.contains(&id);
        let mut families: Vec<Cow<'a, FamilyInfo>> = self
            .families
            .iter()
            .filter(|f| {
                // A family with a tool the mode allows and the core does not offer already.
                !core(&f.id)
                    && allowed
                        .iter()
                        .any(|t| in_family(t, &f.id, ctx) && !CORE.contains(&t.name.as_ref()))
            })
            .map(Cow::Borrowed)
            .collect();
        if allowed.iter().any(|t| in_family(t, PROJECT, ctx)) {
            families.push(Cow::Owned(project_family()));
        }
        for tool in allowed.iter().filter(|t| t.family.starts_with("mcp:")) {
            let family = tool.family.to_string();
            let words = name_words(&tool.name);
            match families.iter_mut().find(|f| f.id == family) {
                Some(known) => known.to_mut().words.extend(words),
                None => families.push(Cow::Owned(FamilyInfo {
                    asks: Vec::new(),
                    words: [name_words(&family["mcp:".len()..]), words].concat(),
                    about: format!("the tools of the MCP server {}", &family["mcp:".len()..]),
                    id: family,
                })),
            }
        }
        families
    }

    /// The families of `families` that `text` asks for, most asked first, at most
    /// `route::MOST`: those retrieval ranks high enough (see `route::index`), the web's first
    /// when it names a web address.
    fn choose(
        &self,
        families: &[Cow<'_, FamilyInfo>],
        remote: &[ToolDef],
        ctx: &ToolContext,
        text: &str,
    ) -> (Vec<Chosen>, Asked) {
        let mut chosen: Vec<Chosen> = Vec::new();
        let mut asked = Asked::Tools;
        if families.iter().any(|f| f.id == WEB) && route::names_a_web_address(text) {
            chosen.push(Chosen {
                family: WEB.to_string(),
                why: "it names a web address".to_string(),
                strength: f64::INFINITY,
            });
        }
        // The message's best family, then each part's best (a message may ask two things:
        // "the weather, and set an alarm"), then the message's others near its best. A message
        // (or part) that asks what a model answers itself brings none. The coding core ranks
        // too, though it is always offered: a message about the code finds its best there, and
        // a family must come near that to come at all ("a failing test" is not the timers').
        if route::only_talks(text) {
            return (chosen, Asked::Talk);
        }
        let offered = coding_core(ctx);
        let entries = self.message_entries(families, remote, ctx);
        let whole = ranked(&entries, text);
        match whole.first() {
            Some((id, _)) if id == route::TALK && !route::never_talk(text) => {
                return (chosen, Asked::Talk);
            }
            Some((id, _)) if offered.contains(&id.as_str()) => asked = Asked::Offered,
            _ => {}
        }
        let top = whole.first().map_or(0.0, |(_, score)| *score);
        let near = match asked {
            Asked::Offered => route::NEAR_THE_OFFERED,
            _ => route::NEAR_THE_TOP,
        };
        let mut candidates: Vec<(String, f64)> = whole.iter().take(1).cloned().collect();
        for part in route::parts(text) {
            candidates.extend(ranked(&entries, part).into_iter().take(1));
        }
        candidates.extend(
            whole
                .into_iter()
                .skip(1)
                .filter(|(_, score)| *score >= top * near),
        );
        for (id, score) in candidates {
            if chosen.len() == route::MOST {
                break;
            }
            let known = id == route::TALK || offered.contains(&id.as_str());
            if !known && score >= route::ENOUGH && !chosen.iter().any(|c| c.family == id) {
                let entry = entries.iter().find(|e| e.id == id.as_str());
                let why = entry.map_or_else(String::new, |e| route::shared_words(text, e));
                chosen.push(Chosen {
                    family: id,
                    why,
                    strength: score,
                });
            }
        }
        (chosen, asked)
    }

    /// What a person's message is ranked against: `families`, and in coding mode the coding
    /// core, which every request offers already (see `choose`).
    fn message_entries<'a>(
        &'a self,
        families: &[Cow<'_, FamilyInfo>],
        remote: &[ToolDef],
        ctx: &ToolContext,
    ) -> Vec<Cow<'a, route::Entry>> {
        let core = coding_core(ctx);
        let mut entries = self.entries(families, remote, ctx);
        entries.retain(|e| {
            !SHADOWED
                .iter()
                .any(|(by, id)| core.contains(by) && e.id == *id)
        });
        for entry in core.into_iter().filter_map(route::built_in) {
            entries.push(Cow::Borrowed(entry));
        }
        entries
    }

    /// How a person's message ranks the families and the coding core, best first.
    #[cfg(test)]
    pub(super) fn message_ranked(
        &self,
        families: &[Cow<'_, FamilyInfo>],
        remote: &[ToolDef],
        ctx: &ToolContext,
        text: &str,
    ) -> Vec<(String, f64)> {
        ranked(&self.message_entries(families, remote, ctx), text)
    }

    /// What retrieval knows of each of `families`: the built-in ones made when Marvin was
    /// built, the others (the project, MCP servers, the person's tools) now.
    fn entries<'a>(
        &'a self,
        families: &[Cow<'_, FamilyInfo>],
        remote: &[ToolDef],
        ctx: &ToolContext,
    ) -> Vec<Cow<'a, route::Entry>> {
        let allowed = self.allowed(ctx, remote);
        families
            .iter()
            .map(|info| {
                let id = info.id.as_str();
                let built = (id != PROJECT && !id.starts_with("mcp:"))
                    .then(|| route::built_in(id))
                    .flatten();
                match built {
                    Some(known) => Cow::Borrowed(known),
                    None => {
                        let tools: Vec<&ToolDef> = allowed
                            .iter()
                            .copied()
                            .filter(|t| in_family(t, id, ctx))
                            .collect();
                        Cow::Owned(entry_of(info, &tools))
                    }
                }
            })
            .collect()
    }

    /// Loads the families the person's `text` asks for into the session's offer (the
    /// fallback family when it asks for none); the ones newly loaded, with why.
    pub(crate) fn route(&self, ctx: &ToolContext, text: &str) -> Vec<Chosen> {
        if !ctx.settings.on_demand {
            return Vec::new();
        }
        ctx.shared.offer.next_turn();
        // What follows a greeting is what is asked; a greeting alone asks nothing (see `choose`).
        let rest = route::after_greeting(text);
        let text = if rest.chars().any(char::is_alphanumeric) {
            rest
        } else {
            text
        };
        let remote = self.mcp_tools();
        let families = self.loadable(ctx, &remote);
        let (mut chosen, asked) = self.choose(&families, &remote, ctx, text);
        if families.iter().any(|f| f.id == PROJECT) && !chosen.iter().any(|c| c.family == PROJECT) {
            let why = names_a_path(text, ctx)
                .map(|path| format!("it names {path}, a file of the project"))
                .or_else(|| {
                    names_in_code(text).map(|name| format!("it names {name}, a name in code"))
                });
            if let Some(why) = why {
                chosen.insert(
                    0,
                    Chosen {
                        family: PROJECT.to_string(),
                        why,
                        strength: f64::INFINITY,
                    },
                );
            }
        }
        let known = asked == Asked::Tools && route::asks_what_is_known(text);
        if known {
            // What the message names outright (a web address, a file of the project) stays,
            // and the families that know.
            chosen.retain(|c| c.strength == f64::INFINITY || KNOWING.contains(&c.family.as_str()));
        }
        let weak = chosen.len() < route::MOST && chosen.iter().all(|c| c.strength < route::STRONG);
        let fallback = families.iter().any(|f| f.id == FALLBACK)
            && !chosen.iter().any(|c| c.family == FALLBACK);
        // What a word means, or what a thing is asked in a word or two, goes to the families
        // that know too, unless another family is clearly what is asked.
        let definition = asked == Asked::Tools && route::asks_a_definition(text);
        let thing = asked == Asked::Tools
            && (definition || route::asks_what_a_thing_is(text))
            && chosen.iter().all(|c| c.strength < 2.0 * route::STRONG);
        if thing && fallback && chosen.len() == route::MOST {
            chosen.pop();
        }
        if (weak || thing)
            && fallback
            && asked == Asked::Tools
            && (known || definition || route::asks_a_fact(text))
        {
            chosen.push(Chosen {
                family: FALLBACK.to_string(),
                why: "it asks a question of fact".to_string(),
                strength: 0.0,
            });
        }
        chosen.retain(|c| ctx.shared.offer.load(&c.family, &c.why));
        // A request that has grown past what one should carry keeps only this turn's families.
        let bytes = self.definitions(ctx).map_or(0, |d| d.get().len());
        if bytes > REQUEST_TOOLS_BUDGET {
            ctx.shared.offer.keep_this_turn_only();
        }
        chosen
    }

    /// Offers, from the next request on, the family of every tool `text` (an error or a note
    /// a call gave the model) names: whatever tells the model to call a tool ("create a
    /// ticket with tk", "use git_restore") names one it can then call. The mode decides as
    /// ever: a tool it does not allow is not offered.
    pub(super) fn offer_named(&self, text: &str, ctx: &ToolContext) {
        if !ctx.settings.on_demand {
            return;
        }
        let remote = self.mcp_tools();
        let allowed = self.allowed(ctx, &remote);
        let offered = self.offered(ctx, &remote);
        let words = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.len() > 1);
        for word in words {
            if offered.iter().any(|t| t.name == word) {
                continue;
            }
            if let Some(tool) = allowed.iter().find(|t| t.name == word) {
                if tool.family != "core" {
                    let why = format!("a result named {word}");
                    ctx.shared.offer.load(family_of(tool, ctx), &why);
                }
            }
        }
    }

    /// `find_tools`: loads the families `arguments` ask for and says what they bring.
    pub(super) fn find_tools_call(&self, arguments: &str, ctx: &ToolContext) -> ToolOutcome {
        let query = serde_json::from_str::<Value>(arguments)
            .ok()
            .and_then(|v| v.get("query").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default();
        let query = query.trim();
        let remote = self.mcp_tools();
        let families = self.loadable(ctx, &remote);
        if query.is_empty() {
            return ToolOutcome::error(format!(
                "Error: Say what you need in \"query\", e.g. {{\"query\": \"set an alarm\"}}. Families: {}.",
                listing(&families)
            ));
        }
        let found = self.found(query, &families, &remote, ctx);
        if found.is_empty() {
            return ToolOutcome::error(format!(
                "Error: No tools match \"{query}\". Ask again with one of these families' names: {}.",
                listing(&families)
            ));
        }
        let allowed = self.allowed(ctx, &remote);
        let mut lines = Vec::new();
        for id in &found {
            ctx.shared.offer.load(id, &format!("{FIND_TOOLS}: {query}"));
            let names: Vec<&str> = allowed
                .iter()
                .filter(|t| in_family(t, id, ctx))
                .map(|t| t.name.as_ref())
                .collect();
            let about = families
                .iter()
                .find(|f| &f.id == id)
                .map_or("", |f| &f.about);
            lines.push(format!("- {id} ({about}): {}", names.join(", ")));
        }
        ToolOutcome {
            content: format!(
                "These tools are offered from your next step on; call them then:\n{}",
                lines.join("\n")
            ),
            is_error: false,
            turned_back: false,
        }
    }

    /// The families `query` names or asks for: a family's id, a tool's name, else its words.
    fn found(
        &self,
        query: &str,
        families: &[Cow<'_, FamilyInfo>],
        remote: &[ToolDef],
        ctx: &ToolContext,
    ) -> Vec<String> {
        let lower = query.to_lowercase();
        if let Some(family) = families.iter().find(|f| f.id == lower) {
            return vec![family.id.clone()];
        }
        let allowed = self.allowed(ctx, remote);
        if let Some(tool) = allowed.iter().find(|t| t.name == lower.as_str()) {
            return vec![family_of(tool, ctx).to_string()];
        }
        // The model says what it needs in its own words, and asked because nothing offered
        // fits: the best few that share anything with its words, never nothing when some do.
        let mut ranked = ranked(&self.entries(families, remote, ctx), query);
        ranked.retain(|(id, _)| id != route::TALK);
        if ranked.is_empty() {
            // Words retrieval passes over ("where am I" is all little words) may still be one
            // of the phrases a family is asked for by.
            let said = phrase(query);
            return families
                .iter()
                .filter(|f| f.words.iter().chain(&f.asks).any(|p| phrase(p) == said))
                .take(FOUND)
                .map(|f| f.id.clone())
                .collect();
        }
        let top = ranked.first().map_or(0.0, |(_, score)| *score);
        ranked
            .into_iter()
            .filter(|(_, score)| *score >= top * route::NEAR_THE_TOP)
            .take(FOUND)
            .map(|(id, _)| id)
            .collect()
    }
}

/// The families of `entries` that share a word with `text`, best first, with their scores;
/// what a model answers by itself (`route::TALK`) ranks among them.
fn ranked(entries: &[Cow<'_, route::Entry>], text: &str) -> Vec<(String, f64)> {
    let mut refs: Vec<&route::Entry> = entries.iter().map(|e| e.as_ref()).collect();
    refs.push(route::talk());
    route::rank(text, &refs)
        .into_iter()
        .map(|(id, score)| (id.to_string(), score))
        .collect()
}

/// What a message asks for, as the router reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Asked {
    /// What a model answers itself: writing, explaining, advice, small talk.
    Talk,
    /// Whatever the families it brings do (perhaps none of them).
    Tools,
    /// What the tools every request offers do (the coding core's).
    Offered,
}

/// The most families one `find_tools` call loads.
const FOUND: usize = 2;

/// `text` as a phrase to compare: its words, lower case, without punctuation or a family
/// word's marks (`~here`, `book*`).
fn phrase(text: &str) -> String {
    let lower = text.to_lowercase().replace(['\'', '’'], "");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}

/// `weather (weather forecasts), …` for the families of a message.
fn listing<F: std::borrow::Borrow<FamilyInfo>>(families: &[F]) -> String {
    families
        .iter()
        .map(|f| {
            let f = f.borrow();
            format!("{} ({})", f.id, f.about)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolSettings;
    use std::sync::Arc;

    fn ctx(coding_mode: bool) -> ToolContext {
        ToolContext {
            coding_mode,
            settings: Arc::new(ToolSettings {
                on_demand: true,
                ..ToolSettings::default()
            }),
            ..ToolContext::new("/".into())
        }
        .with_someone_there()
    }

    #[test]
    fn nobody_is_offered_a_tool_that_asks_when_nobody_can_answer() {
        let registry = Registry::builtin();
        let there = ctx(true);
        assert!(registry.names(&there).contains(&"ask_user".to_string()));
        registry.route(&there, "put the questions in a browser form");
        assert!(registry.names(&there).contains(&"interview".to_string()));
        let nobody = ToolContext {
            interactor: None,
            ..ctx(true)
        };
        registry.route(&nobody, "put the questions in a browser form");
        let names = registry.names(&nobody);
        assert!(
            !names.iter().any(|n| n == "ask_user" || n == "interview"),
            "{names:?}"
        );
        let find = registry.definitions(&nobody).unwrap();
        assert!(!find.get().contains("interview ("), "{}", find.get());
        // Called all the same (a name from an earlier run), it says why it cannot ask.
        let call = crate::message::ToolCall::new("c1", "ask_user", r#"{"questions":[]}"#);
        assert!(registry.execute(&call, &nobody).is_error);
    }

    #[test]
    fn a_name_as_code_writes_it_is_told_from_words_people_write() {
        for (text, name) in [
            ("where do we call parse_config?", "parse_config"),
            ("who calls loadPlugins", "loadPlugins"),
            ("what does Config::load return", "Config::load"),
            ("where's `main()`", "main()"),
            ("is __init__ slow", "__init__"),
        ] {
            assert_eq!(names_in_code(text), Some(name), "{text}");
        }
        for not in [
            "my iPhone is slow",
            "update macOS tonight",
            "is iOS 19 out",
            "my eSIM stopped working",
            "find a McDonald's",
            "send an e-mail to ann",
            "a 2_000 word essay",
            "see (above) :)",
            "hello :: world",
        ] {
            assert_eq!(names_in_code(not), None, "{not}");
        }
    }

    #[test]
    fn a_word_names_a_path_only_when_it_is_a_file_of_the_working_directory() {
        let dir = crate::test_support::TempDir::new("names-a-path");
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/parse.rs"), "").unwrap();
        let ctx = ToolContext::new(dir.path().to_path_buf());
        assert_eq!(
            names_a_path("what does `src/parse.rs` do?", &ctx).as_deref(),
            Some("src/parse.rs")
        );
        for not in [
            "what is 3.5 plus 2?",
            "look at ./ and . here",
            "see ../etc/passwd",
            "a.b.c",
        ] {
            assert_eq!(names_a_path(not, &ctx), None, "{not}");
        }
    }

    /// The names `ctx`'s next request offers.
    fn offered(registry: &Registry, ctx: &ToolContext) -> Vec<String> {
        registry.names(ctx)
    }

    use super::super::recall_tests::names;

    /// How many of `path`'s requests (lines with a `sentence`) that some tool serves
    /// (`expect_of` the line) are offered one of those tools in their first request, of how
    /// many (see `first_round`; a line marked `"none": true` needs no tool).
    fn first_round_recall(path: &str, expect_of: impl Fn(&Value) -> Vec<String>) -> (usize, usize) {
        let recall = first_round(path, expect_of, |r| r["none"] == true);
        (recall.served, recall.asked)
    }

    /// What `first_round` measured: of `asked` requests that need a tool, `served` were offered
    /// one that serves them first; of `no_tool` that need none, `given` brought a family and
    /// `wiki_alone` Wikipedia's alone.
    struct Recall {
        served: usize,
        asked: usize,
        no_tool: usize,
        given: usize,
        wiki_alone: usize,
    }

    /// How `path`'s requests (lines with a `sentence`) fare in their first request: those some
    /// tool serves (`expect_of` the line) are offered one of those tools, and those that need
    /// none (`needs_none`) bring no family; each miss is printed with SHOW_SLURP.
    fn first_round(
        path: &str,
        expect_of: impl Fn(&Value) -> Vec<String>,
        needs_none: impl Fn(&Value) -> bool,
    ) -> Recall {
        let registry = Registry::builtin();
        let (mut served, mut asked) = (0, 0);
        let mut bytes = Vec::new();
        let (mut no_tool, mut no_tool_given, mut no_tool_wiki) = (0, 0, 0);
        for line in std::fs::read_to_string(path).unwrap().lines() {
            let request: Value = serde_json::from_str(line).unwrap();
            let expect = expect_of(&request);
            if expect.is_empty() {
                // A request that needs no tool: any family it brings is noise.
                if needs_none(&request) {
                    let ctx = ctx(false);
                    registry.route(&ctx, request["sentence"].as_str().unwrap());
                    no_tool += 1;
                    let families = ctx.shared.offer.families();
                    let wiki_only = families.len() == 1 && families[0].family == FALLBACK;
                    if wiki_only {
                        no_tool_wiki += 1;
                    } else if !families.is_empty() {
                        no_tool_given += 1;
                        if std::env::var("SHOW_SLURP").is_ok() {
                            let chosen: Vec<String> = families
                                .into_iter()
                                .map(|l| format!("{}:{}", l.family, l.why))
                                .collect();
                            eprintln!("NOISE {} → {chosen:?}", request["sentence"]);
                        }
                    }
                }
                continue;
            }
            let ctx = ctx(false);
            registry.route(&ctx, request["sentence"].as_str().unwrap());
            asked += 1;
            bytes.push(registry.definitions(&ctx).map_or(0, |d| d.get().len()));
            if offered(&registry, &ctx).iter().any(|n| expect.contains(n)) {
                served += 1;
            } else if std::env::var("SHOW_SLURP").is_ok() {
                let chosen: Vec<String> = ctx
                    .shared
                    .offer
                    .families()
                    .into_iter()
                    .map(|l| format!("{}:{}", l.family, l.why))
                    .collect();
                eprintln!(
                    "SLURP {} → {chosen:?} (wanted {expect:?})",
                    request["sentence"]
                );
            }
        }
        bytes.sort();
        if no_tool > 0 {
            eprintln!(
                "{path}: of {no_tool} that need no tool, {no_tool_given} given a family, {no_tool_wiki} Wikipedia alone"
            );
        }
        eprintln!(
            "{path}: {served}/{asked} = {:.1}%, tools median {} p95 {}",
            100.0 * served as f64 / asked as f64,
            bytes[bytes.len() / 2],
            bytes[bytes.len() * 95 / 100]
        );
        Recall {
            served,
            asked,
            no_tool,
            given: no_tool_given,
            wiki_alone: no_tool_wiki,
        }
    }

    /// SLURP's devel split (tests/fixtures/routing): for at least 97% of the requests some tool
    /// serves, one of those tools is offered in the first request. SLURP_FILE measures another
    /// set of the same shape instead (a tuning aid: it asserts nothing).
    #[test]
    fn a_tool_that_serves_the_request_is_offered_first_for_97_percent_of_slurp() {
        let devel = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/routing/slurp_devel.jsonl"
        );
        let other = std::env::var("SLURP_FILE").ok();
        let (served, asked) =
            first_round_recall(other.as_deref().unwrap_or(devel), |r| names(&r["expect"]));
        if other.is_none() {
            let recall = served as f64 / asked as f64;
            assert!(
                recall >= 0.97,
                "first-round recall {served}/{asked} = {recall:.3}"
            );
        }
    }

    /// The utterances of NLU-Evaluation-Data that neither of SLURP's splits holds (what the
    /// router was tuned on; see tests/fixtures/routing/README.md): at least 97% are offered
    /// a tool that serves them first.
    #[test]
    fn a_tool_that_serves_the_request_is_offered_first_for_nlu_evaluation_data() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/routing");
        let intents: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{root}/intent_tools.json")).unwrap(),
        )
        .unwrap();
        let (served, asked) = first_round_recall(&format!("{root}/nlu_devel.jsonl"), |r| {
            names(&intents[r["intent"].as_str().unwrap()])
        });
        assert!(asked > 3_500, "{asked}");
        let recall = served as f64 / asked as f64;
        assert!(
            recall >= 0.97,
            "first-round recall {served}/{asked} = {recall:.3}"
        );
    }

    /// CLINC150's requests (see tests/fixtures/routing/README.md): its train split, whose
    /// intents the router was tuned on, is measured (printed); its test split, held out, is
    /// held at what was reached.
    #[test]
    fn a_tool_that_serves_the_request_is_offered_first_and_none_when_none_is_needed_for_clinc150() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/routing");
        let intents: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{root}/clinc_intent_tools.json")).unwrap(),
        )
        .unwrap();
        let needs_none = |r: &Value| {
            intents["needs_no_tool"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| *i == r["intent"])
        };
        // The train split tuned the router: measured (printed) only. The test split holds.
        for (split, least_served, most_given) in [
            ("clinc_devel.jsonl", 0.0, 1.0),
            ("clinc_test.jsonl", 0.93, 0.09),
        ] {
            let recall = first_round(
                &format!("{root}/{split}"),
                |r| names(&intents["serves"][r["intent"].as_str().unwrap()]),
                needs_none,
            );
            assert_eq!(
                recall.asked + recall.no_tool,
                if split == "clinc_devel.jsonl" {
                    4800
                } else {
                    1440
                }
            );
            let served = recall.served as f64 / recall.asked as f64;
            let given = recall.given as f64 / recall.no_tool as f64;
            eprintln!(
                "{split}: served {served:.3}, no-tool given a family {given:.3} (Wikipedia alone {})",
                recall.wiki_alone
            );
            assert!(
                served >= least_served,
                "{split}: {}/{} served",
                recall.served,
                recall.asked
            );
            assert!(
                given <= most_given,
                "{split}: {}/{} given a family",
                recall.given,
                recall.no_tool
            );
        }
    }

    #[test]
    fn the_core_comes_first_and_families_are_appended_in_the_order_they_came() {
        let registry = Registry::builtin();
        let ctx = ctx(false);
        assert_eq!(
            offered(&registry, &ctx),
            ["web_search", "ask_user", "find_tools"]
        );
        let chosen = registry.route(&ctx, "will it rain tomorrow in Lyon?");
        assert_eq!(chosen[0].family, "weather");
        assert!(chosen[0].why.contains("rain"), "{}", chosen[0].why);
        let first = offered(&registry, &ctx);
        registry.route(&ctx, "and set an alarm for seven");
        let second = offered(&registry, &ctx);
        assert!(second.starts_with(&first), "{first:?} then {second:?}");
        assert!(second.contains(&"set_alarm".to_string()));
        // Nothing in particular: no family; a question of fact: the facts family, once.
        let quiet = self::ctx(false);
        assert!(registry.route(&quiet, "hello there").is_empty());
        let chosen = registry.route(&quiet, "who was Ada Lovelace?");
        assert_eq!(chosen[0].family, "wiki");
        assert!(registry.route(&quiet, "who was Alan Turing?").is_empty());
    }

    #[test]
    fn what_a_model_answers_itself_brings_no_family() {
        let registry = Registry::builtin();
        for talk in [
            "write me a haiku about the rain",
            "tell me a joke about records",
            "explain recursion like I'm five",
            "rewrite this to sound more formal: hey can u send me the file",
            // Remarks that ask for nothing, and sums.
            "ugh, the timer went off in the middle of my nap lol",
            "thanks, the forecast was spot on",
            "what's 48 divided by 6",
            "144 times 3",
        ] {
            let ctx = ctx(false);
            let chosen: Vec<String> = registry
                .route(&ctx, talk)
                .into_iter()
                .map(|c| c.family)
                .collect();
            assert!(chosen.is_empty(), "{talk}: {chosen:?}");
        }
        // The same words asking for what a tool does bring its family.
        for (asked, family) in [
            ("will it rain in Oslo tomorrow?", "weather"),
            ("play some old records by Nina Simone", "music"),
            ("send a message to my phone when it is done", "ntfy"),
            ("ugh, set a timer for 10 minutes", "timers"),
            ("thanks, now what's the forecast for Lyon?", "weather"),
        ] {
            let ctx = ctx(false);
            let chosen = registry.route(&ctx, asked);
            assert!(
                chosen.iter().any(|c| c.family == family),
                "{asked}: {chosen:?}"
            );
        }
        // A question of what is known borrows families' words and brings only the families
        // that know (Wikipedia, the dictionary and units); asked of the person's own things,
        // the same words bring their family.
        for (asked, family) in [
            ("why do songs get stuck in your head?", None),
            ("how many minutes are in a day?", None),
            ("how many ounces are in a pound?", Some("utilities")),
            ("why did my alarm not go off?", Some("alarms")),
            (
                "why is the weather so cold in Oslo this week?",
                Some("weather"),
            ),
        ] {
            let ctx = ctx(false);
            let chosen: Vec<String> = registry
                .route(&ctx, asked)
                .into_iter()
                .map(|c| c.family)
                .collect();
            match family {
                None => assert_eq!(chosen, [FALLBACK], "{asked}"),
                Some(family) => assert!(chosen.iter().any(|c| c == family), "{asked}: {chosen:?}"),
            }
        }
        // find_tools never returns it.
        let ctx = ctx(false);
        let found = registry.execute(
            &crate::message::ToolCall::new("f", FIND_TOOLS, r#"{"query": "tell me a joke"}"#),
            &ctx,
        );
        assert!(!found.content.contains("talk"), "{}", found.content);
    }

    #[test]
    fn in_coding_mode_a_message_about_the_code_brings_only_what_it_clearly_asks_for() {
        let registry = Registry::builtin();
        let routed = |text: &str| -> Vec<String> {
            let ctx = ctx(true);
            registry
                .route(&ctx, text)
                .into_iter()
                .map(|c| c.family)
                .collect()
        };
        // Its best is the coding core's, or it names a file of code: stray words bring nothing.
        assert_eq!(routed("fix the failing test"), Vec::<String>::new());
        assert_eq!(
            routed("delete the unused helpers in strings.rs"),
            Vec::<String>::new()
        );
        // "The ticket" is the project's (tk, offered), not a personal one.
        assert_eq!(routed("start work on ticket abc-12"), Vec::<String>::new());
        // What the core cannot do still comes.
        assert_eq!(routed("ping my phone when the build is done"), ["ntfy"]);
        assert!(routed("install requests with uv").contains(&"coding/packages".to_string()));
        // find_tools still loads a family the mode's core stands in for.
        let ctx = ctx(true);
        registry.find_tools_call(r#"{"query": "tickets"}"#, &ctx);
        assert!(registry.names(&ctx).contains(&"create_ticket".to_string()));
    }

    #[test]
    fn coding_mode_offers_its_core_and_never_routes_to_what_the_mode_lacks() {
        let registry = Registry::builtin();
        let coding = ctx(true);
        let names = offered(&registry, &coding);
        for core in [
            "read_file",
            "apply_patch",
            "run_command",
            "code_grep",
            "git_diff",
        ] {
            assert!(names.contains(&core.to_string()), "{core} in {names:?}");
        }
        assert!(!names.contains(&"launch_agent".to_string()));
        let everyday = ctx(false);
        let chosen = registry.route(&everyday, "commit this and run the tests with git");
        assert!(
            chosen.iter().all(|c| !c.family.starts_with("coding/")),
            "{chosen:?}"
        );
    }

    #[test]
    fn find_tools_loads_a_family_by_name_tool_or_words_and_says_what_came() {
        let registry = Registry::builtin();
        let ctx = ctx(false);
        let call = |query: &str| {
            registry.execute(
                &crate::message::ToolCall::new(
                    "f1",
                    FIND_TOOLS,
                    serde_json::json!({"query": query}).to_string(),
                ),
                &ctx,
            )
        };
        let found = call("directions to the station");
        assert!(!found.is_error, "{}", found.content);
        assert!(found.content.contains("- travel (directions, travel times, traffic): estimate_travel_time, get_directions, traffic_adjusted_time"), "{}", found.content);
        assert!(offered(&registry, &ctx).contains(&"get_directions".to_string()));
        assert!(!call("recipes").is_error);
        assert!(offered(&registry, &ctx).contains(&"recipe_search".to_string()));
        assert!(!call("steam_featured").is_error);
        assert!(offered(&registry, &ctx).contains(&"steam_search".to_string()));
        let none = call("xyzzy plugh");
        assert!(none.is_error);
        assert!(
            none.content.contains("weather (weather forecasts)"),
            "{}",
            none.content
        );
        let families: Vec<String> = ctx
            .shared
            .offer
            .families()
            .into_iter()
            .map(|l| l.why)
            .collect();
        assert_eq!(families[0], "find_tools: directions to the station");
    }

    #[test]
    fn a_tool_not_offered_runs_when_called_and_its_family_comes_with_it() {
        let registry = Registry::builtin();
        let ctx = ctx(false);
        assert!(!offered(&registry, &ctx).contains(&"list_places".to_string()));
        let outcome = registry.execute(
            &crate::message::ToolCall::new("c1", "list_places", "{}"),
            &ctx,
        );
        assert!(
            !outcome.content.contains("Unknown tool"),
            "{}",
            outcome.content
        );
        assert!(offered(&registry, &ctx).contains(&"save_place".to_string()));
        let unknown = registry.execute(
            &crate::message::ToolCall::new("c2", "weather_forcast", "{}"),
            &ctx,
        );
        assert!(
            unknown.content.contains("Did you mean 'weather_forecast'?"),
            "{}",
            unknown.content
        );
        assert!(
            unknown
                .content
                .contains("(find_tools finds and loads the others)")
        );
    }

    #[test]
    fn a_users_own_tool_is_a_family_of_its_words() {
        let info = own_family(
            &ToolDef::build("deploySite_now")
                .describe("Deploys the site. Then says where.")
                .offered(Offered::Everywhere)
                .example("{}")
                .json_handler(Box::new(|_, _| Ok(String::new()))),
        );
        assert_eq!(info.id, "custom:deploySite_now");
        assert_eq!(info.about, "Deploys the site.");
        assert_eq!(info.words, ["deploy", "site", "now", "deploy site now"]);
    }
}
