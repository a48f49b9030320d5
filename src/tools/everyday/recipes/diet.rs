//! The profile's dietary preferences held against a recipe's ingredients: `dietary` (seed 002's
//! profile: ["vegetarian", "gluten-free"]) and `allergies` (["peanuts", "sesame"]), each a
//! list or one comma-separated text. A diet rules out groups of foods named by small, explicit
//! word lists; an allergy to something no group names is matched by its own word. Matching is
//! by whole words (a plural as its singular), and a few words undo a match ("coconut milk" is
//! not dairy, "rice noodles" hold no gluten).

use serde_json::Value;

/// Foods some diets or allergies rule out, by the words that name them.
pub(super) struct Group {
    /// Words or phrases, separated by commas.
    words: &'static str,
    /// Words or phrases that, in the same ingredient, make it not one of these.
    unless: &'static str,
}

static MEAT: Group = Group {
    words: "meat, beef, steak, pork, bacon, ham, sausage, chorizo, salami, pancetta, prosciutto, chicken, turkey, duck, lamb, mutton, veal, goat, lard, gelatin, gelatine",
    unless: "vegan, vegetarian, cheese, milk",
};
static FISH: Group = Group {
    words: "fish, salmon, tuna, cod, haddock, trout, mackerel, sardine, anchovy, anchovies, seafood",
    unless: "vegan",
};
static SHELLFISH: Group = Group {
    words: "shellfish, prawn, shrimp, crab, lobster, crayfish, langoustine, mussel, clam, oyster, scallop, squid, seafood",
    unless: "vegan, mushroom",
};
static EGG: Group = Group {
    words: "egg, mayonnaise",
    unless: "vegan, egg free",
};
static DAIRY: Group = Group {
    words: "milk, butter, buttermilk, cream, cheese, yogurt, yoghurt, ghee, parmesan, parmigiano, mozzarella, cheddar, feta, ricotta, mascarpone, creme fraiche, crème fraîche",
    unless: "coconut, almond, soy, soya, oat, rice, peanut, cocoa, vegan, tartar, dairy free",
};
static GLUTEN: Group = Group {
    words: "flour, wheat, bread, breadcrumbs, pasta, spaghetti, penne, macaroni, lasagne, noodles, couscous, semolina, bulgur, barley, rye, pastry, soy sauce",
    unless: "rice, corn, almond, coconut, buckwheat, gluten free",
};
static NUTS: Group = Group {
    words: "nut, peanut, almond, walnut, pecan, cashew, hazelnut, pistachio, macadamia, marzipan",
    unless: "",
};
static HONEY: Group = Group {
    words: "honey",
    unless: "",
};

/// A word of a diet or an allergy and the groups it rules out.
static RULES: &[(&str, &[&Group])] = &[
    ("vegan", &[&MEAT, &FISH, &SHELLFISH, &EGG, &DAIRY, &HONEY]),
    ("vegetarian", &[&MEAT, &FISH, &SHELLFISH]),
    ("pescatarian", &[&MEAT]),
    ("pescetarian", &[&MEAT]),
    ("gluten", &[&GLUTEN]),
    ("coeliac", &[&GLUTEN]),
    ("celiac", &[&GLUTEN]),
    ("wheat", &[&GLUTEN]),
    ("dairy", &[&DAIRY]),
    ("lactose", &[&DAIRY]),
    ("milk", &[&DAIRY]),
    ("nut", &[&NUTS]),
    ("peanut", &[&NUTS]),
    ("egg", &[&EGG]),
    ("fish", &[&FISH]),
    ("shellfish", &[&SHELLFISH]),
    ("seafood", &[&FISH, &SHELLFISH]),
];

/// One thing the preferences say, and what it rules out.
struct Restriction {
    /// As the person wrote it: "vegetarian", "allergy to sesame".
    said: String,
    groups: Vec<&'static Group>,
    /// An allergen no group names, matched by its own words.
    own: Option<String>,
}

/// What the preferences say about food.
#[derive(Default)]
pub(super) struct Diet {
    restrictions: Vec<Restriction>,
    /// Diets with no word list here (halal, keto…): said to be unchecked.
    unchecked: Vec<String>,
}

impl Diet {
    /// The restrictions in the preferences' `dietary` and `allergies`.
    pub(super) fn from_preferences(preferences: &Value) -> Self {
        let mut diet = Self::default();
        for said in entries(&preferences["dietary"]) {
            match groups(&said) {
                groups if groups.is_empty() => diet.unchecked.push(said),
                groups => diet.restrictions.push(Restriction {
                    said,
                    groups,
                    own: None,
                }),
            }
        }
        for allergen in entries(&preferences["allergies"]) {
            let groups = groups(&allergen);
            let own = groups.is_empty().then(|| allergen.clone());
            diet.restrictions.push(Restriction {
                said: format!("allergy to {allergen}"),
                groups,
                own,
            });
        }
        diet
    }

    pub(super) fn is_empty(&self) -> bool {
        self.restrictions.is_empty() && self.unchecked.is_empty()
    }

    /// What of the preferences `text` (an ingredient, a dish's name) goes against.
    pub(super) fn conflicts(&self, text: &str) -> Vec<&str> {
        let words = words(text);
        self.restrictions
            .iter()
            .filter(|rule| {
                rule.groups.iter().any(|group| group.holds(&words))
                    || rule.own.as_deref().is_some_and(|own| contains(&words, own))
            })
            .map(|rule| rule.said.as_str())
            .collect()
    }

    /// The one line that says what the preferences hold.
    pub(super) fn note(&self) -> String {
        let said: Vec<&str> = self.restrictions.iter().map(|r| r.said.as_str()).collect();
        let mut note = format!("Your preferences: {}.", said.join(", "));
        if said.is_empty() {
            note = "Your preferences name no diet or allergy this tool can check.".into();
        }
        if !self.unchecked.is_empty() {
            note.push_str(&format!(
                " Not checked (no word list for it): {}.",
                self.unchecked.join(", ")
            ));
        }
        note
    }
}

/// " ⚠ conflicts with: vegetarian, allergy to peanuts" when `conflicts` is not empty.
pub(super) fn mark(conflicts: &[&str]) -> String {
    if conflicts.is_empty() {
        return String::new();
    }
    format!("  ⚠ conflicts with: {}", conflicts.join(", "))
}

impl Group {
    fn holds(&self, words: &[String]) -> bool {
        let listed = |list: &str| list.split(',').any(|phrase| contains(words, phrase));
        listed(self.words) && !listed(self.unless)
    }
}

/// A preference's entries: a list of texts, or one text separated by commas.
fn entries(value: &Value) -> Vec<String> {
    let texts: Vec<&str> = match value {
        Value::String(text) => text.split(',').collect(),
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    texts
        .into_iter()
        .map(|text| text.trim().to_lowercase())
        .filter(|text| !text.is_empty())
        .collect()
}

/// The groups an entry rules out ("gluten-free" → gluten, "nut allergy" → nuts).
fn groups(entry: &str) -> Vec<&'static Group> {
    let words = words(entry);
    let mut found: Vec<&'static Group> = Vec::new();
    for (word, groups) in RULES {
        if contains(&words, word) {
            for group in *groups {
                if !found.iter().any(|known| std::ptr::eq(*known, *group)) {
                    found.push(group);
                }
            }
        }
    }
    found
}

/// `text` in lower-case words (letters and digits).
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `phrase`'s words come one after another in `words`.
fn contains(words: &[String], phrase: &str) -> bool {
    let phrase = self::words(phrase);
    !phrase.is_empty()
        && words.windows(phrase.len()).any(|window| {
            window
                .iter()
                .zip(&phrase)
                .all(|(word, wanted)| same_word(word, wanted))
        })
}

/// The same word, one of them perhaps plural ("egg", "eggs"; "tomato", "tomatoes").
fn same_word(a: &str, b: &str) -> bool {
    let plural_of = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest == "s" || rest == "es")
    };
    a == b || plural_of(a, b) || plural_of(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diet(preferences: Value) -> Diet {
        Diet::from_preferences(&preferences)
    }

    #[test]
    fn ingredients_are_held_against_each_diet() {
        let vegetarian = diet(json!({"dietary": ["vegetarian"]}));
        let vegan = diet(json!({"dietary": "vegan"}));
        let gluten = diet(json!({"dietary": ["Gluten-free"]}));
        let cases: &[(&Diet, &str, bool)] = &[
            (&vegetarian, "2 chicken breasts", true),
            (&vegetarian, "Chicken Stock", true),
            (&vegetarian, "Anchovy Fillet", true),
            (&vegetarian, "King Prawns", true),
            (&vegetarian, "Vegetable Stock", false),
            (&vegetarian, "Goats Cheese", false),
            (&vegetarian, "Vegetarian sausages", false),
            (&vegetarian, "Oyster mushrooms", false),
            (&vegetarian, "Hamburger buns", false),
            (&vegetarian, "eggs", false),
            (&vegan, "eggs", true),
            (&vegan, "Butter", true),
            (&vegan, "Double Cream", true),
            (&vegan, "Honey", true),
            (&vegan, "Coconut Milk", false),
            (&vegan, "Peanut Butter", false),
            (&vegan, "Cream of tartar", false),
            (&vegan, "Eggplant", false),
            (&gluten, "Plain Flour", true),
            (&gluten, "Spaghetti", true),
            (&gluten, "Soy Sauce", true),
            (&gluten, "Rice noodles", false),
            (&gluten, "Cornflour", false),
            (&gluten, "Gluten-free flour", false),
        ];
        for (diet, ingredient, conflicts) in cases {
            assert_eq!(
                !diet.conflicts(ingredient).is_empty(),
                *conflicts,
                "{ingredient}: {}",
                diet.note()
            );
        }
    }

    #[test]
    fn allergies_name_a_group_or_their_own_word() {
        let allergic = diet(json!({"allergies": "peanuts, sesame, shellfish"}));
        let cases: &[(&str, &[&str])] = &[
            ("Peanut Butter", &["allergy to peanuts"]),
            ("Flaked almonds", &["allergy to peanuts"]),
            ("Sesame Seed Oil", &["allergy to sesame"]),
            ("Prawns", &["allergy to shellfish"]),
            ("Salmon", &[]),
            ("Nutmeg", &[]),
            ("Coconut", &[]),
            ("Butternut squash", &[]),
        ];
        for (ingredient, said) in cases {
            assert_eq!(allergic.conflicts(ingredient), *said, "{ingredient}");
        }
    }

    #[test]
    fn the_note_says_what_was_checked_and_what_was_not() {
        let cases = [
            (
                json!({}),
                true,
                "Your preferences name no diet or allergy this tool can check.",
            ),
            (
                json!({"dietary": []}),
                true,
                "Your preferences name no diet or allergy this tool can check.",
            ),
            (
                json!({"dietary": ["Vegetarian", "halal"], "allergies": ["sesame"]}),
                false,
                "Your preferences: vegetarian, allergy to sesame. Not checked (no word list for it): halal.",
            ),
            (
                json!({"dietary": 3, "allergies": [1, "nuts"]}),
                false,
                "Your preferences: allergy to nuts.",
            ),
        ];
        for (preferences, empty, note) in cases {
            let diet = diet(preferences.clone());
            assert_eq!(diet.is_empty(), empty, "{preferences}");
            assert_eq!(diet.note(), note, "{preferences}");
        }
    }

    #[test]
    fn words_match_whole_and_in_order_a_plural_as_its_singular() {
        let cases = [
            ("2 eggs", "egg", true),
            ("tomatoes", "tomato", true),
            ("pine nuts", "pine nut", true),
            ("nut pine", "pine nut", false),
            ("nutmeg", "nut", false),
            ("hazelnut", "nut", false),
            ("", "nut", false),
        ];
        for (text, phrase, found) in cases {
            assert_eq!(contains(&words(text), phrase), found, "{text} / {phrase}");
        }
    }
}
