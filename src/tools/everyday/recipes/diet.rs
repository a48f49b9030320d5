//! The profile's dietary preferences held against a recipe's ingredients: `dietary` (seed 002's
//! profile: ["vegetarian", "gluten-free"]) and `allergies` (["peanuts", "sesame"]), each a
//! list or one comma-separated text. A diet rules out groups of foods named by small, explicit
//! word lists; an allergy to something no group names is matched by its own word. Matching is
//! by whole words (a plural as its singular), and a few phrases undo the match they hold
//! ("coconut milk" is not dairy, "rice noodles" hold no gluten) without undoing another match
//! in the same text ("coconut milk and chicken" is still meat). The lists are words, not
//! knowledge of every product: what they do not name is not flagged.

use serde_json::Value;

/// Foods some diets or allergies rule out, by the words that name them.
pub(super) struct Group {
    /// Words or phrases, separated by commas, sorted.
    words: &'static str,
    /// Phrases, separated by commas, sorted, that undo a match of `words` they hold: either
    /// the matched word itself in them ("coconut milk", "cream of tartar") or `*` standing for
    /// whatever matched ("vegan *", "gluten free *").
    unless: &'static str,
}

static MEAT: Group = Group {
    words: "bacon, beef, black pudding, bresaola, brisket, chicken, chipolata, chorizo, duck, gammon, gelatin, gelatine, goat, goose, guanciale, haggis, ham, lamb, lard, lardon, liver, meat, meatball, mortadella, mutton, oxtail, pancetta, pepperoni, pheasant, pork, prosciutto, quail, rabbit, salami, sausage, steak, suet, turkey, veal, venison",
    unless: "beef tomato, cauliflower steak, goat cheese, goat milk, goat s cheese, goat s milk, meat free, meat free *, quorn *, vegan *, vegetable suet, vegetarian *",
};
static FISH: Group = Group {
    words: "anchovies, anchovy, bonito, caviar, cod, dashi, fish, haddock, halibut, herring, kipper, mackerel, monkfish, pilchard, plaice, pollock, roe, salmon, sardine, sea bass, seafood, swordfish, tilapia, trout, tuna, whitebait, worcestershire",
    unless: "vegan *, vegetarian *",
};
static SHELLFISH: Group = Group {
    words: "clam, cockle, crab, crayfish, langoustine, lobster, mussel, octopus, oyster, prawn, scallop, seafood, shellfish, shrimp, squid, whelk",
    unless: "crab apple, oyster mushroom, vegan *, vegetarian *",
};
static EGG: Group = Group {
    words: "aioli, egg, mayonnaise, meringue",
    unless: "* free, egg free *, vegan *",
};
static DAIRY: Group = Group {
    words: "brie, butter, buttermilk, camembert, cheddar, cheese, cream, creme fraiche, crème fraîche, custard, emmental, feta, ghee, gorgonzola, gruyere, gruyère, halloumi, kefir, mascarpone, milk, mozzarella, paneer, parmesan, parmigiano, pecorino, quark, ricotta, stilton, whey, yoghurt, yogurt",
    unless: "* free, almond *, butter bean, cashew *, cocoa *, coconut *, cream of tartar, dairy free *, nut *, oat *, peanut *, rice *, shea *, soy *, soya *, vegan *",
};
static GLUTEN: Group = Group {
    words: "ale, bagel, baguette, barley, beer, biscuit, bread, breadcrumbs, brioche, bulgur, bun, ciabatta, couscous, cracker, croissant, crouton, farro, fettuccine, filo, flour, gnocchi, lasagna, lasagne, linguine, macaroni, malt, naan, noodle, orzo, panko, pappardelle, pasta, pastry, penne, phyllo, pita, pitta, pizza, ramen, ravioli, rigatoni, roll, rye, seitan, semolina, soy sauce, spaghetti, spelt, stout, tagliatelle, tortellini, tortilla, udon, vermicelli, wheat, wonton, yorkshire pudding",
    unless: "* gluten free, almond flour, buckwheat flour, cassava flour, chickpea flour, coconut flour, corn flour, corn tortilla, ginger ale, ginger beer, gluten free *, gram flour, potato flour, quinoa flour, rice *, root beer, tapioca flour",
};
static NUTS: Group = Group {
    words: "almond, brazil nut, cashew, hazelnut, macadamia, marzipan, nut, peanut, pecan, pine nut, pistachio, praline, walnut",
    unless: "* free",
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
    /// Whether some word of the group is in `words` outside every `unless` phrase.
    fn holds(&self, words: &[String]) -> bool {
        phrases(self.words).any(|phrase| {
            let phrase = self::words(phrase);
            starts(words, &phrase).any(|at| !self.excused(words, &phrase, at))
        })
    }

    /// Whether an `unless` phrase surrounds the match of `phrase` at word `at`.
    fn excused(&self, words: &[String], phrase: &[String], at: usize) -> bool {
        phrases(self.unless).any(|unless| {
            around(unless, phrase).iter().any(|(before, after)| {
                let end = at + phrase.len();
                at >= before.len()
                    && end + after.len() <= words.len()
                    && same_words(&words[at - before.len()..at], before)
                    && same_words(&words[end..end + after.len()], after)
            })
        })
    }
}

/// The phrases of a comma-separated list.
fn phrases(list: &'static str) -> impl Iterator<Item = &'static str> {
    list.split(',')
        .map(str::trim)
        .filter(|phrase| !phrase.is_empty())
}

/// Where `phrase` starts in `words`.
fn starts<'a>(words: &'a [String], phrase: &'a [String]) -> impl Iterator<Item = usize> + 'a {
    (0..words.len().saturating_sub(phrase.len().saturating_sub(1)))
        .filter(move |&at| !phrase.is_empty() && same_words(&words[at..at + phrase.len()], phrase))
}

/// The words an `unless` phrase puts before and after a match of `phrase`: around its `*`, or
/// around each place `phrase` is in it (none when it is not).
fn around(unless: &str, phrase: &[String]) -> Vec<(Vec<String>, Vec<String>)> {
    if let Some((before, after)) = unless.split_once('*') {
        return vec![(words(before), words(after))];
    }
    let unless = words(unless);
    starts(&unless, phrase)
        .map(|at| {
            let end = at + phrase.len();
            (unless[..at].to_vec(), unless[end..].to_vec())
        })
        .collect()
}

/// Whether two runs of words are the same, word by word.
fn same_words(words: &[String], wanted: &[String]) -> bool {
    words.len() == wanted.len()
        && words
            .iter()
            .zip(wanted)
            .all(|(word, wanted)| same_word(word, wanted))
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
    starts(words, &phrase).next().is_some()
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

    /// The reviewer's cases: with seed 002's profile, everyday wheat foods and meats the lists
    /// once missed, and dishes whose other words used to undo the match.
    #[test]
    fn a_vegetarian_gluten_free_profile_flags_what_it_should() {
        let profile = diet(json!({"dietary": ["vegetarian", "gluten-free"]}));
        let both: &[&str] = &["vegetarian", "gluten-free"];
        let vegetarian: &[&str] = &["vegetarian"];
        let gluten: &[&str] = &["gluten-free"];
        let cases: &[(&str, &[&str])] = &[
            ("Rigatoni", gluten),
            ("Tagliatelle", gluten),
            ("Fettuccine", gluten),
            ("Digestive Biscuits", gluten),
            ("Burger Buns", gluten),
            ("Ciabatta", gluten),
            ("Beer", gluten),
            ("Egg Noodles", gluten),
            ("Bulgur Wheat", gluten),
            ("Couscous", gluten),
            ("Puff Pastry", gluten),
            ("Malt Vinegar", gluten),
            ("Soy Sauce", gluten),
            ("Suet", vegetarian),
            ("Pepperoni", vegetarian),
            ("Worcestershire Sauce", vegetarian),
            ("Black Pudding", vegetarian),
            ("Gelatine Leafs", vegetarian),
            ("Lard", vegetarian),
            ("Chicken Stock Cube", vegetarian),
            ("Beef Stock Cubes", vegetarian),
            ("Ham and Cheese Toastie", vegetarian),
            ("Beef and Milk Stew", vegetarian),
            ("Coconut Milk Chicken Curry", vegetarian),
            ("Goats Cheese and Ham Tart", vegetarian),
            ("Chicken Pot Pie with Pastry", both),
            ("Coconut Milk", &[]),
            ("Goats Cheese", &[]),
            ("Vegetable Suet", &[]),
            ("Vegetarian Sausages", &[]),
            ("Meat-free mince", &[]),
            ("Rice Noodles", &[]),
            ("Rice Vermicelli", &[]),
            ("Gluten-free Spaghetti", &[]),
            ("Ginger Beer", &[]),
            ("Beef Tomatoes", &[]),
            ("Oyster Mushrooms", &[]),
            ("Cornflour", &[]),
        ];
        for (text, said) in cases {
            assert_eq!(profile.conflicts(text), *said, "{text}");
        }
    }

    /// An `unless` phrase undoes only the match inside it: "coconut milk" is not dairy, and
    /// "chicken" beside it still is meat.
    #[test]
    fn exceptions_undo_only_the_match_they_hold() {
        let vegan = diet(json!({"dietary": ["vegan"]}));
        let cases: &[(&str, bool)] = &[
            ("coconut milk", false),
            ("coconut milk and whole milk", true),
            ("milk and coconut", true),
            ("cream of tartar", false),
            ("cream of tartar and double cream", true),
            ("butter beans", false),
            ("butter beans in butter", true),
            ("egg-free mayonnaise", false),
            ("vegan mayonnaise", false),
            ("mayonnaise, vegan", true),
        ];
        for (text, conflicts) in cases {
            assert_eq!(!vegan.conflicts(text).is_empty(), *conflicts, "{text}");
        }
    }

    #[test]
    fn word_lists_are_sorted_without_repeats() {
        let groups = [
            ("meat", &MEAT),
            ("fish", &FISH),
            ("shellfish", &SHELLFISH),
            ("egg", &EGG),
            ("dairy", &DAIRY),
            ("gluten", &GLUTEN),
            ("nuts", &NUTS),
            ("honey", &HONEY),
        ];
        for (name, group) in groups {
            for list in [group.words, group.unless] {
                let items: Vec<&str> = phrases(list).collect();
                let mut sorted = items.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(items, sorted, "{name}");
            }
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
