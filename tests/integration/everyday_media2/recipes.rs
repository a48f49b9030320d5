//! recipe_search and recipe_lookup against a local TheMealDB, with dietary preferences in the
//! profile.
//!
//! Real recordings (tests/fixtures/apis/, each with its note; both kept by
//! timmypass17/FetchDessert in its tests): themealdb_lookup_52917_reformatted.json (a lookup,
//! re-formatted, also what `random.php` answers: a list of one full meal) and
//! themealdb_filter_dessert_TRIMMED.json (a filter by category, its first 5 meals only).
//!
//! Documentation-shaped, written here from TheMealDB's API page (themealdb.com/api.php; see
//! tests/fixtures/apis/mealdb.md) because no recording covers them: a search by name
//! (mealdb_search_teriyaki.json), a filter by ingredient (mealdb_filter_ingredient.json),
//! nothing found (mealdb_meals_null.json), and the made-up meals of `meal_with`.

use super::{built, call, home_with_preferences, portal, reply};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir, fixture};

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("MEALDB_URL", server.root())]
}

#[test]
fn a_search_by_name_flags_the_ingredients_a_diet_rules_out() {
    let home = home_with_preferences("recipe-search", r#"{"dietary": ["vegetarian"]}"#);
    let server = ReplayServer::start(vec![built(200, "mealdb_search_teriyaki.json")]);
    let text = call(
        &home,
        "recipe_search",
        r#"{"query": "teriyaki"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "TheMealDB recipes named 'teriyaki' (1 of 1):\n\n\
         1. Teriyaki Chicken Casserole (id 52772) — Chicken, Japanese, 9 ingredients\n   \
         ⚠ conflicts with vegetarian: chicken breasts\n\n\
         Your preferences: vegetarian.\n\n\
         Read one with recipe_lookup (id)."
    );
    assert_eq!(server.requests()[0].url, "/search.php?s=teriyaki");
}

#[test]
fn a_search_by_ingredient_flags_by_name_and_says_so() {
    let home = home_with_preferences("recipe-filter", r#"{"dietary": "vegetarian"}"#);
    let server = ReplayServer::start(vec![built(200, "mealdb_filter_ingredient.json")]);
    let text = call(
        &home,
        "recipe_search",
        r#"{"query": "chicken breast", "by": "ingredient", "max_results": 2}"#,
        &env(&server),
    );
    let likely = "   ⚠ likely conflicts with vegetarian (by its name or what was searched; recipe_lookup checks its ingredients)";
    assert_eq!(
        text,
        format!(
            "TheMealDB recipes with the main ingredient 'chicken breast' (2 of 3):\n\n\
             1. Brown Stew Chicken (id 52940)\n{likely}\n\n\
             2. Chicken Handi (id 52795)\n{likely}\n\n\
             Your preferences: vegetarian. {NAMES_ONLY}\n\n\
             Read one with recipe_lookup (id)."
        )
    );
    assert_eq!(server.requests()[0].url, "/filter.php?i=chicken_breast");
}

/// What a search by ingredient, category or area says of a diet: TheMealDB's lists carry no
/// ingredients.
const NAMES_ONLY: &str = "Only the names and what was searched were checked: TheMealDB's lists by ingredient, category or area hold no ingredients, so read a recipe with recipe_lookup to check its ingredients.";

/// A recorded answer from tests/fixtures/apis/.
fn recorded(name: &str) -> Reply {
    Reply::json(200, fixture(&format!("apis/{name}")))
}

#[test]
fn a_search_by_category_lists_the_recorded_desserts_and_says_what_was_checked() {
    let home = home_with_preferences("recipe-category", r#"{"dietary": ["vegan"]}"#);
    let server = ReplayServer::start(vec![recorded("themealdb_filter_dessert_TRIMMED.json")]);
    let text = call(
        &home,
        "recipe_search",
        r#"{"query": "Dessert", "by": "category", "max_results": 3}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "TheMealDB recipes in the category 'Dessert' (3 of 5):\n\n\
             1. Apam balik (id 53049)\n\n\
             2. Apple & Blackberry Crumble (id 52893)\n\n\
             3. Apple Frangipan Tart (id 52768)\n\n\
             Your preferences: vegan. {NAMES_ONLY}\n\n\
             Read one with recipe_lookup (id)."
        )
    );
    assert_eq!(server.requests()[0].url, "/filter.php?c=Dessert");
}

/// The recorded lookup: measures with a trailing space ("100g "), a measure that is words
/// ("Pod of", "Top"), one ingredient twice, pairs 7-20 empty strings, instructions in one
/// paragraph, a misspelt tag kept.
#[test]
fn a_recipe_reads_as_measures_and_numbered_steps_with_conflicts_marked() {
    let home = home_with_preferences(
        "recipe-lookup",
        r#"{"dietary": ["vegan", "Gluten-free", "halal"], "allergies": "chocolate"}"#,
    );
    let server = ReplayServer::start(vec![recorded("themealdb_lookup_52917_reformatted.json")]);
    let text = call(&home, "recipe_lookup", r#"{"id": "52917"}"#, &env(&server));
    assert_eq!(
        text,
        "White chocolate creme brulee (id 52917) — Dessert, French\n\
         Tags: Desert, DinnerParty, Pudding\n\n\
         Ingredients (6):\n\
         - 568ml Double Cream  ⚠ conflicts with: vegan\n\
         - 100g White Chocolate Chips  ⚠ conflicts with: allergy to chocolate\n\
         - Pod of Vanilla\n\
         - 6 Egg Yolks  ⚠ conflicts with: vegan\n\
         - 2 tbs Caster Sugar\n\
         - Top Caster Sugar\n\
         Your preferences: vegan, gluten-free, allergy to chocolate. Not checked (no word list for it): halal. \
         3 ingredients go against them (marked ⚠).\n\n\
         Steps:\n\
         1. Heat the cream, chocolate and vanilla pod in a pan until the chocolate has melted.\n\
         2. Take off the heat and allow to infuse for 10 mins, scraping the pod seeds into the cream.\n\
         3. If using the vanilla extract, add straight away.\n\
         4. Heat oven to 160C/fan 140C/gas 3.\n\
         5. Beat yolks and sugar until pale. stir in the chocolate cream.\n\
         6. Strain into a jug and pour into ramekins.\n\
         7. Place in a deep roasting tray and pour boiling water halfway up the sides.\n\
         8. Bake for 15-20 mins until just set with a wobbly centre.\n\
         9. Chill in the fridge for at least 4 hrs.\n\
         10. To serve, sprinkle some sugar on top of the brûlées and caramelise with a blowtorch or briefly under a hot grill.\n\
         11. Leave caramel to harden, then serve.\n\n\
         Source: https://www.bbcgoodfood.com/recipes/2540/white-chocolate-crme-brle\n\
         YouTube: https://www.youtube.com/watch?v=LmJ0lsPLHDc"
    );
    assert_eq!(server.requests()[0].url, "/lookup.php?i=52917");
}

/// `random.php` answers as a lookup does (a list of one full meal): the recorded lookup.
#[test]
fn a_random_recipe_without_preferences_flags_nothing() {
    let home = TempDir::new("recipe-random");
    let server = ReplayServer::start(vec![recorded("themealdb_lookup_52917_reformatted.json")]);
    let text = call(&home, "recipe_lookup", "{}", &env(&server));
    assert!(
        text.starts_with("White chocolate creme brulee (id 52917) — Dessert, French\nTags: Desert, DinnerParty, Pudding\n\nIngredients (6):\n- 568ml Double Cream\n"),
        "{text}"
    );
    assert!(text.contains("\n- 6 Egg Yolks\n"), "{text}");
    assert!(text.contains("\n11. Leave caramel to harden"), "{text}");
    assert!(
        text.ends_with("\nYouTube: https://www.youtube.com/watch?v=LmJ0lsPLHDc"),
        "{text}"
    );
    assert!(
        !text.contains('⚠') && !text.contains("preferences"),
        "{text}"
    );
    assert_eq!(server.requests()[0].url, "/random.php");
}

#[test]
fn nothing_found_errors_html_and_silence() {
    let home = TempDir::new("recipe-errors");
    let server = ReplayServer::start(vec![
        built(200, "mealdb_meals_null.json"),
        built(200, "mealdb_meals_null.json"),
        built(200, "mealdb_meals_null.json"),
        reply(502, "text/plain", "Bad Gateway"),
        portal(),
    ]);
    let env = env(&server);
    let said: Vec<String> = [
        ("recipe_search", r#"{"query": "zzqx"}"#),
        ("recipe_search", r#"{"query": "Snacks", "by": "category"}"#),
        ("recipe_lookup", r#"{"id": "1"}"#),
        ("recipe_search", r#"{"query": "pie"}"#),
        ("recipe_search", r#"{"query": "pie"}"#),
        ("recipe_lookup", r#"{"id": "arrabiata"}"#),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    assert_eq!(
        said[0],
        "TheMealDB found no recipes named 'zzqx'. Try another word (a dish such as curry or pie, or part of its name), or search by ingredient, category or area."
    );
    assert_eq!(
        said[1],
        "TheMealDB found no recipes in the category 'Snacks'. TheMealDB's categories are Beef, Breakfast, Chicken, Dessert, Goat, Lamb, Miscellaneous, Pasta, Pork, Seafood, Side, Starter, Vegan, Vegetarian."
    );
    assert_eq!(
        said[2],
        "Error: TheMealDB has no recipe with id 1: ids come from recipe_search."
    );
    assert_eq!(said[3], "Error: TheMealDB answered HTTP 502: Bad Gateway");
    assert!(
        said[4].starts_with("Error: TheMealDB answered with a web page instead of data"),
        "{}",
        said[4]
    );
    assert!(said[4].contains("MEALDB_URL"), "{}", said[4]);
    assert!(
        said[5].starts_with("Error: 'arrabiata' is not a TheMealDB id"),
        "{}",
        said[5]
    );
    let asked: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(
        asked,
        [
            "/search.php?s=zzqx",
            "/filter.php?c=Snacks",
            "/lookup.php?i=1",
            "/search.php?s=pie",
            "/search.php?s=pie"
        ]
    );
    let timed_out = call_unanswered(&home, "recipe_search", r#"{"query": "pie"}"#, "MEALDB_URL");
    assert_eq!(
        timed_out,
        "Error: TheMealDB request timed out after 1s. Try again or rephrase query."
    );
}

/// A lookup answer with these ingredients (made here, in TheMealDB's shape: `meals[0]` with
/// `strIngredientN` and `strMeasureN`).
fn meal_with(name: &str, ingredients: &[&str]) -> String {
    let mut meal =
        serde_json::json!({"idMeal": "90001", "strMeal": name, "strInstructions": "Cook."});
    for (n, ingredient) in ingredients.iter().enumerate() {
        meal[format!("strIngredient{}", n + 1)] = (*ingredient).into();
        meal[format!("strMeasure{}", n + 1)] = "1".into();
    }
    serde_json::json!({"meals": [meal]}).to_string()
}

/// Seed 002's profile against everyday wheat foods and meats the word lists once missed, and a
/// recipe none of whose words match, said as a word-list result, not as safe.
#[test]
fn a_vegetarian_gluten_free_profile_flags_wheat_foods_and_hidden_meat() {
    let home = home_with_preferences(
        "recipe-lookup-diet",
        r#"{"dietary": ["vegetarian", "gluten-free"]}"#,
    );
    let flagged = [
        "Rigatoni",
        "Tagliatelle",
        "Fettuccine",
        "Digestive Biscuits",
        "Burger Buns",
        "Ciabatta",
        "Beer",
        "Suet",
        "Pepperoni",
        "Worcestershire Sauce",
        "Black Pudding",
    ];
    let server = ReplayServer::start(vec![
        Reply::json(200, meal_with("Everything Pie", &flagged)),
        Reply::json(
            200,
            meal_with("Rice Salad", &["Rice", "Coconut Milk", "Lime"]),
        ),
    ]);
    let text = call(&home, "recipe_lookup", r#"{"id": "90001"}"#, &env(&server));
    let gluten = "  ⚠ conflicts with: gluten-free";
    let meat = "  ⚠ conflicts with: vegetarian";
    let expected: Vec<String> = flagged
        .iter()
        .enumerate()
        .map(|(i, name)| format!("\n- 1 {name}{}", if i < 7 { gluten } else { meat }))
        .collect();
    assert!(text.contains(&expected.concat()), "{text}");
    assert!(
        text.contains(
            "\nYour preferences: vegetarian, gluten-free. 11 ingredients go against them (marked ⚠)."
        ),
        "{text}"
    );
    let text = call(&home, "recipe_lookup", r#"{"id": "90002"}"#, &env(&server));
    assert!(!text.contains('⚠'), "{text}");
    assert!(
        text.contains(
            "\nYour preferences: vegetarian, gluten-free. None of the ingredients matched the words Marvin checks for these preferences; check labels yourself for allergies."
        ),
        "{text}"
    );
}
