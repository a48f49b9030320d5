//! recipe_search and recipe_lookup against a local TheMealDB, with dietary preferences in the
//! profile. The answers are built from TheMealDB's API page (themealdb.com/api.php; see
//! tests/fixtures/apis/mealdb.md), nothing was recorded.

use super::{built, call, home_with_preferences, portal, reply};
use crate::common::tools::call_unanswered;
use crate::common::{ReplayServer, Reply, TempDir};

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
             Your preferences: vegetarian.\n\n\
             Read one with recipe_lookup (id)."
        )
    );
    assert_eq!(server.requests()[0].url, "/filter.php?i=chicken_breast");
}

#[test]
fn a_recipe_reads_as_measures_and_numbered_steps_with_conflicts_marked() {
    let home = home_with_preferences(
        "recipe-lookup",
        r#"{"dietary": ["vegan", "Gluten-free", "halal"], "allergies": "garlic"}"#,
    );
    let server = ReplayServer::start(vec![built(200, "mealdb_lookup_52771.json")]);
    let text = call(&home, "recipe_lookup", r#"{"id": "52771"}"#, &env(&server));
    assert_eq!(
        text,
        "Spicy Arrabiata Penne (id 52771) — Vegetarian, Italian\n\
         Tags: Pasta, Curry\n\n\
         Ingredients (8):\n\
         - 1 pound penne rigate  ⚠ conflicts with: gluten-free\n\
         - 1/4 cup olive oil\n\
         - 3 cloves garlic  ⚠ conflicts with: allergy to garlic\n\
         - 1 tin chopped tomatoes\n\
         - 1/2 teaspoon red chile flakes\n\
         - 1/2 teaspoon italian seasoning\n\
         - 6 leaves basil\n\
         - spinkling Parmigiano-Reggiano  ⚠ conflicts with: vegan\n\
         Your preferences: vegan, gluten-free, allergy to garlic. Not checked (no word list for it): halal. \
         3 ingredients go against them (marked ⚠).\n\n\
         Steps:\n\
         1. Bring a large pot of water to a boil. Add kosher salt to the boiling water, then add the pasta. Cook according to the package instructions, about 9 minutes.\n\
         2. In a large skillet over medium-high heat, add the olive oil and heat until the oil starts to shimmer. Add the garlic and cook, stirring, until fragrant, 1 to 2 minutes. Add the chopped tomatoes, red chile flakes, Italian seasoning and salt and pepper to taste. Bring to a boil and cook for 5 minutes. Remove from the heat and add the chopped basil.\n\
         3. Drain the pasta and add it to the sauce. Garnish with Parmigiano-Reggiano flakes and more basil and serve warm.\n\n\
         Source: https://example.com/spicy-arrabiata-penne\n\
         YouTube: https://www.youtube.com/watch?v=1IszT_guI08"
    );
    assert_eq!(server.requests()[0].url, "/lookup.php?i=52771");
}

#[test]
fn a_random_recipe_without_preferences_flags_nothing() {
    let home = TempDir::new("recipe-random");
    let server = ReplayServer::start(vec![built(200, "mealdb_search_teriyaki.json")]);
    let text = call(&home, "recipe_lookup", "{}", &env(&server));
    assert!(
        text.starts_with("Teriyaki Chicken Casserole (id 52772) — Chicken, Japanese\nTags: Meat, Casserole\n\nIngredients (9):\n- 3/4 cup soy sauce\n"),
        "{text}"
    );
    assert!(text.contains("\n- 2 chicken breasts\n"), "{text}");
    assert!(text.contains("\n6. Add the cooked vegetables"), "{text}");
    assert!(
        text.ends_with("\n\nYouTube: https://www.youtube.com/watch?v=4aZr5hZXP_s"),
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
