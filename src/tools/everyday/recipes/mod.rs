//! The recipes family: `recipe_search` (TheMealDB's meals by name, main ingredient, category
//! or area) and `recipe_lookup` (one meal by id, or a random one: its ingredients with their
//! measures, its instructions as numbered steps, its source and video), through TheMealDB at
//! MEALDB_URL. Ingredients that go against the profile's dietary preferences are marked
//! (diet.rs). TheMealDB says "nothing found" as `{"meals": null}`.

mod diet;

use serde::Deserialize;
use serde_json::Value;

use crate::services::MEALDB;
use crate::tools::kit::geo;
use crate::tools::kit::web::Call;
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};
use diet::{Diet, mark};

const DEFAULT_RESULTS: usize = 10;
const MAX_RESULTS: usize = 25;
/// TheMealDB's categories, for a search by category that found nothing.
const CATEGORIES: &str = "Beef, Breakfast, Chicken, Dessert, Goat, Lamb, Miscellaneous, Pasta, Pork, Seafood, Side, Starter, Vegan, Vegetarian";

const SEARCH_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "A dish's name (\"arrabiata\"), or with `by` a main ingredient (\"chicken breast\"), a category (\"Seafood\") or an area (\"Italian\")",
    ),
    Param::optional(
        "by",
        Kind::Choice(Choices::Fixed(&["name", "ingredient", "category", "area"])),
        "What the query is: name (default), ingredient, category or area (a cuisine such as Italian, Mexican, Japanese)",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many recipes (1-25, default 10)",
    ),
];
const LOOKUP_PARAMS: &[Param] = &[Param::optional(
    "id",
    Kind::String,
    "The meal's id from recipe_search (e.g. \"52772\"); leave it out for a random recipe",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "recipes",
    about: "recipes and cooking",
    words: &[
        "recipe",
        "recipes",
        "cook",
        "cooking",
        "bake",
        "baking",
        "ingredient",
        "ingredients",
        "dish",
        "meal",
        "dinner idea",
        "how to make",
        "how do i make",
        "cuisine",
        "vegetarian",
        "vegan",
        "dessert",
        "breakfast",
        "soup",
        "salad",
        "pasta",
        "chicken",
        "spaghetti",
        "casserole",
        "cake",
        "cookies",
        "food",
        "foods",
        "menu",
        "menus",
        "oven",
        "healthy",
        "gluten",
        "italian",
        "mexican",
        "indian",
        "thai",
        "chinese",
        "japanese",
        "lunch",
        "dinner",
        "breakfast",
        "snack",
        "idea for dinner",
        "bake",
        "roast",
        "grill",
        "fry",
        // How a thing is cooked, and what usually is.
        "boil",
        "simmer",
        "poach",
        "marinate",
        "thaw",
        "defrost",
        "saute",
        "broil",
        "microwave",
        "knead",
        "dough",
        "egg",
        "eggs",
        "rice",
        "beef",
        "pork",
        "fish",
        "pie",
        "sauce",
        "steak",
        "prepare",
        "serving",
        "servings",
        "calories",
        "teaspoon",
        "teaspoons",
        "tablespoon",
        "tablespoons",
        "deglaze",
        "zest",
        "pizza",
        "turkey",
        "butter",
        "cheese",
        "bread",
        "potato",
        "potatoes",
        "broccoli",
        "avocado",
        "risotto",
        "flour",
        "curry",
        "spices",
        "cinnamon",
        "sandwich",
        "pancake",
        "pancakes",
        "noodles",
        "vegetables",
        "garlic",
        "lasagna",
        "lasagne",
        "omelette",
        "biryani",
        "muffins",
        "cupcakes",
        "brownies",
    ],
    asks: &[
        "suggest a meal for tonight",
        "give me a recipe for lasagne",
        "what can I cook with chickpeas and spinach",
        "how do I make banana bread",
        "dinner ideas tonight",
        "a vegetarian curry recipe",
        "ingredients for pancakes",
        "something quick to bake",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("recipe_search")
            .describe("Find recipes in TheMealDB by dish name, main ingredient, category or cuisine (area); ingredients against the person's dietary preferences are flagged. Read one with recipe_lookup.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "chicken", "by": "ingredient", "max_results": 5}"#)
            .handler(recipe_search),
        ToolDef::build("recipe_lookup")
            .describe("A recipe from TheMealDB by id (or a random one): ingredients with measures, numbered steps, source and video links, with ingredients against the person's dietary preferences flagged.")
            .offered(Offered::Everywhere)
            .params(LOOKUP_PARAMS)
            .example(r#"{"id": "52772"}"#)
            .handler(recipe_lookup),
    ]
}

/// What a search's query is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
enum By {
    #[default]
    Name,
    Ingredient,
    Category,
    Area,
}

impl By {
    /// The endpoint and its parameter.
    fn endpoint(self) -> (&'static str, &'static str) {
        match self {
            Self::Name => ("/search.php", "s"),
            Self::Ingredient => ("/filter.php", "i"),
            Self::Category => ("/filter.php", "c"),
            Self::Area => ("/filter.php", "a"),
        }
    }

    fn words(self) -> &'static str {
        match self {
            Self::Name => "named",
            Self::Ingredient => "with the main ingredient",
            Self::Category => "in the category",
            Self::Area => "from the area",
        }
    }

    /// What to try when nothing was found.
    fn suggestion(self) -> String {
        match self {
            Self::Name => "Try another word (a dish such as curry or pie, or part of its name), or search by ingredient, category or area.".into(),
            Self::Ingredient => "Try another ingredient, in its plain name (chicken, salmon, garlic), or search by name.".into(),
            Self::Category => format!("TheMealDB's categories are {CATEGORIES}."),
            Self::Area => "Areas are cuisines named by their adjective (Italian, Mexican, Japanese, Indian, British…); try another, or search by name.".into(),
        }
    }
}

/// The meals of an answer; `None` when TheMealDB found none (`"meals": null`).
fn api(
    ctx: &ToolContext,
    path: &str,
    query: &[(&str, &str)],
) -> Result<Option<Vec<Value>>, String> {
    let call = Call {
        query,
        ..Call::default()
    };
    let value = ctx.settings.web.json(&MEALDB, path, &call, &ctx.cancel)?;
    match &value["meals"] {
        Value::Array(meals) if !meals.is_empty() => Ok(Some(meals.clone())),
        Value::Array(_) | Value::Null => Ok(None),
        other => Err(format!(
            "TheMealDB answered without a list of meals ({}). Try again later, or check MEALDB_URL.",
            short(&other.to_string())
        )),
    }
}

fn short(text: &str) -> String {
    text.chars().take(100).collect()
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    by: Option<By>,
    max_results: Option<usize>,
}

fn recipe_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err(
            "The query is empty: give a dish's name, an ingredient, a category or an area.".into(),
        );
    }
    let by = args.by.unwrap_or_default();
    let limit = args
        .max_results
        .unwrap_or(DEFAULT_RESULTS)
        .clamp(1, MAX_RESULTS);
    // TheMealDB writes ingredients with underscores for spaces ("chicken_breast").
    let asked = match by {
        By::Ingredient => query.replace(' ', "_"),
        _ => query.to_string(),
    };
    let (path, parameter) = by.endpoint();
    let Some(meals) = api(ctx, path, &[(parameter, asked.as_str())])? else {
        return Ok(format!(
            "TheMealDB found no recipes {} '{query}'. {}",
            by.words(),
            by.suggestion()
        ));
    };
    let diet = Diet::from_preferences(&geo::preferences(ctx));
    let mut out = format!(
        "TheMealDB recipes {} '{query}' ({} of {}):",
        by.words(),
        meals.len().min(limit),
        meals.len()
    );
    for (i, meal) in meals.iter().take(limit).enumerate() {
        out.push_str(&format!(
            "\n\n{}. {}",
            i + 1,
            search_line(meal, by, query, &diet)
        ));
    }
    if !diet.is_empty() {
        out.push_str(&format!("\n\n{}", diet.note()));
        if by != By::Name {
            out.push_str(" Only the names and what was searched were checked: TheMealDB's lists by ingredient, category or area hold no ingredients, so read a recipe with recipe_lookup to check its ingredients.");
        }
    }
    out.push_str("\n\nRead one with recipe_lookup (id).");
    Ok(out)
}

/// A found meal: name, id, category and area when given, and what goes against the diet —
/// its ingredients when the answer lists them (a search by name), else its name and what was
/// searched for (a filter's answer holds only names and ids).
fn search_line(meal: &Value, by: By, query: &str, diet: &Diet) -> String {
    let mut line = heading(meal);
    let ingredients = ingredients(meal);
    if !ingredients.is_empty() {
        line.push_str(&format!(", {} ingredients", ingredients.len()));
        line.push_str(&ingredient_conflicts(&ingredients, diet));
        return line;
    }
    let mut seen = vec![field(meal, "strMeal").unwrap_or_default()];
    if matches!(by, By::Ingredient | By::Category) {
        seen.push(query);
    }
    let mut conflicts: Vec<&str> = Vec::new();
    for said in seen.iter().flat_map(|text| diet.conflicts(text)) {
        if !conflicts.contains(&said) {
            conflicts.push(said);
        }
    }
    if !conflicts.is_empty() {
        line.push_str(&format!(
            "\n   ⚠ likely conflicts with {} (by its name or what was searched; recipe_lookup checks its ingredients)",
            conflicts.join(", ")
        ));
    }
    line
}

/// "Teriyaki Chicken Casserole (id 52772) — Chicken, Japanese".
fn heading(meal: &Value) -> String {
    let mut line = format!(
        "{} (id {})",
        field(meal, "strMeal").unwrap_or("(unnamed)"),
        field(meal, "idMeal").unwrap_or("?")
    );
    let about: Vec<&str> = ["strCategory", "strArea"]
        .iter()
        .filter_map(|key| field(meal, key))
        .collect();
    if !about.is_empty() {
        line.push_str(&format!(" — {}", about.join(", ")));
    }
    line
}

/// A line for each preference the ingredients go against, naming them.
fn ingredient_conflicts(ingredients: &[(String, String)], diet: &Diet) -> String {
    let mut broken: Vec<(&str, Vec<&str>)> = Vec::new();
    for (_, ingredient) in ingredients {
        for said in diet.conflicts(ingredient) {
            match broken.iter_mut().find(|(known, _)| *known == said) {
                Some((_, which)) => which.push(ingredient),
                None => broken.push((said, vec![ingredient])),
            }
        }
    }
    broken
        .iter()
        .map(|(said, which)| format!("\n   ⚠ conflicts with {said}: {}", which.join(", ")))
        .collect()
}

/// A text field when it says something (TheMealDB leaves blanks as "", " " or null).
fn field<'a>(meal: &'a Value, key: &str) -> Option<&'a str> {
    meal[key]
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// strIngredient1..20 with strMeasure1..20: (measure, ingredient), blanks skipped.
fn ingredients(meal: &Value) -> Vec<(String, String)> {
    (1..=20)
        .filter_map(|n| {
            let ingredient = field(meal, &format!("strIngredient{n}"))?;
            let measure = field(meal, &format!("strMeasure{n}")).unwrap_or_default();
            Some((measure.to_string(), ingredient.to_string()))
        })
        .collect()
}

/// The instructions as steps: one a line (a "STEP 3" or "3." of their own taken off); a text
/// in one paragraph is cut at its sentences.
fn steps(instructions: &str) -> Vec<String> {
    let lines: Vec<&str> = instructions
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let pieces: Vec<String> = if lines.len() == 1 {
        sentences(lines[0])
    } else {
        lines.iter().map(|line| line.to_string()).collect()
    };
    pieces
        .iter()
        .map(|piece| unnumbered(piece).to_string())
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// A paragraph cut after each ". " that a capital letter follows.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices(". ") {
        let next = bytes.get(at + 2).copied().unwrap_or(b' ');
        if next.is_ascii_uppercase() {
            out.push(text[start..=at].trim().to_string());
            start = at + 2;
        }
    }
    out.push(text[start..].trim().to_string());
    out
}

/// A step without the number it came with ("STEP 2", "2.", "2)", "2 -"); a step that starts
/// with an amount ("1.5 kg potatoes", "350 g flour") keeps it.
fn unnumbered(step: &str) -> &str {
    let step = step.trim();
    let (worded, rest) = match step.get(..4) {
        Some(word) if word.eq_ignore_ascii_case("step") => (true, step[4..].trim_start()),
        _ => (false, step),
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let after = &rest[digits..];
    let punctuated = after.starts_with(['.', ')', ':'])
        && after[1..].chars().next().is_none_or(char::is_whitespace);
    let numbered =
        digits > 0 && (worded || after.is_empty() || punctuated || after.starts_with(" -"));
    if !numbered {
        return step;
    }
    after.trim_start_matches(['.', ')', ':', '-', ' ']).trim()
}

#[derive(Deserialize)]
struct LookupArgs {
    id: Option<String>,
}

fn recipe_lookup(args: LookupArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = args
        .id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty());
    if let Some(id) = id {
        if !id.chars().all(|c| c.is_ascii_digit()) {
            return Err(format!(
                "'{id}' is not a TheMealDB id: ids are numbers such as 52772 (recipe_search gives them); leave id out for a random recipe."
            ));
        }
    }
    let meals = match id {
        Some(id) => api(ctx, "/lookup.php", &[("i", id)])?,
        None => api(ctx, "/random.php", &[])?,
    };
    let Some(meal) = meals.as_ref().and_then(|meals| meals.first()) else {
        return Err(match id {
            Some(id) => {
                format!("TheMealDB has no recipe with id {id}: ids come from recipe_search.")
            }
            None => "TheMealDB gave no random recipe this time. Try again.".into(),
        });
    };
    let diet = Diet::from_preferences(&geo::preferences(ctx));
    Ok(describe_meal(meal, &diet))
}

fn describe_meal(meal: &Value, diet: &Diet) -> String {
    let mut out = heading(meal);
    if let Some(tags) = field(meal, "strTags") {
        out.push_str(&format!("\nTags: {}", tags.replace(',', ", ")));
    }
    let ingredients = ingredients(meal);
    out.push_str(&format!("\n\nIngredients ({}):", ingredients.len()));
    let mut marked = 0;
    for (measure, ingredient) in &ingredients {
        let conflicts = diet.conflicts(ingredient);
        marked += usize::from(!conflicts.is_empty());
        let amount = if measure.is_empty() {
            String::new()
        } else {
            format!("{measure} ")
        };
        out.push_str(&format!("\n- {amount}{ingredient}{}", mark(&conflicts)));
    }
    if !diet.is_empty() {
        let count = match marked {
            0 => "None of the ingredients matched the words Marvin checks for these preferences; check labels yourself for allergies.".to_string(),
            1 => "1 ingredient goes against them (marked ⚠).".to_string(),
            n => format!("{n} ingredients go against them (marked ⚠)."),
        };
        out.push_str(&format!("\n{} {count}", diet.note()));
    }
    let steps = steps(field(meal, "strInstructions").unwrap_or_default());
    if !steps.is_empty() {
        out.push_str("\n\nSteps:");
        for (n, step) in steps.iter().enumerate() {
            out.push_str(&format!("\n{}. {step}", n + 1));
        }
    }
    let links: Vec<String> = [("Source", "strSource"), ("YouTube", "strYoutube")]
        .iter()
        .filter_map(|(label, key)| field(meal, key).map(|link| format!("{label}: {link}")))
        .collect();
    if !links.is_empty() {
        out.push_str(&format!("\n\n{}", links.join("\n")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ingredients_pair_with_their_measures_and_blanks_are_skipped() {
        let meal = json!({
            "strIngredient1": "soy sauce", "strMeasure1": "3/4 cup",
            "strIngredient2": "", "strMeasure2": "",
            "strIngredient3": "salt", "strMeasure3": " ",
            "strIngredient4": null, "strMeasure4": null,
            "strIngredient20": "chicken", "strMeasure20": "2"
        });
        assert_eq!(
            ingredients(&meal),
            vec![
                ("3/4 cup".to_string(), "soy sauce".to_string()),
                (String::new(), "salt".to_string()),
                ("2".to_string(), "chicken".to_string()),
            ]
        );
    }

    #[test]
    fn instructions_become_numbered_steps() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Preheat oven to 350° F.\r\nCombine soy sauce.\r\n\r\nBake.",
                &["Preheat oven to 350° F.", "Combine soy sauce.", "Bake."],
            ),
            (
                "STEP 1\r\nBoil water.\r\nSTEP 2\r\nAdd pasta.",
                &["Boil water.", "Add pasta."],
            ),
            (
                "1. Boil water.\n2) Add pasta.\n3 - Drain.",
                &["Boil water.", "Add pasta.", "Drain."],
            ),
            (
                "Heat oil. Fry onions for 5 min. until soft. Serve.",
                &["Heat oil.", "Fry onions for 5 min. until soft.", "Serve."],
            ),
            (
                "Step one: mix.\nStepping stones.",
                &["Step one: mix.", "Stepping stones."],
            ),
            (
                "1.5 kg potatoes, peeled.\n350 g flour.\n3: Boil.",
                &["1.5 kg potatoes, peeled.", "350 g flour.", "Boil."],
            ),
            ("", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(steps(text), *expected, "{text:?}");
        }
    }
}
