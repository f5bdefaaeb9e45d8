//! Keeps of an expanded kernel only what its entry points reach. The expansion pastes whole
//! files (a representation, its arithmetic, all of its math), and some shader compilers
//! translate every function of a module whether it is called or not: SwiftShader spent minutes
//! and gigabytes per software-f64 kernel on math functions the kernel never calls.
//!
//! The source is split into top-level items (an item ends at a `;` or a closing `}` outside
//! any bracket; the comments before it belong to it), each named by what it declares; the
//! entry points (`@compute`) and directives are kept, and with them every item whose name a kept
//! item mentions, transitively. A mention in a comment or of a shadowing local keeps an item
//! needlessly, never drops one that is needed.

/// One top-level item of WGSL source.
struct Item<'a> {
    /// Its text, with the comments and blank lines before it.
    text: &'a str,
    /// What it declares (a function, struct, alias, constant or variable); `None` for a
    /// directive (`enable f16;`), which is always kept.
    name: Option<&'a str>,
    /// An entry point.
    entry: bool,
}

/// `source` with the items no entry point reaches taken out, in the order it had.
pub(crate) fn prune(source: &str) -> String {
    pruned(source, None)
}

/// `source` with only entry point `entry` and what it reaches: a module whose entry points
/// bind one binding as different types (the kernel over an axis reads X as words or as vectors).
pub(crate) fn prune_to_entry(source: &str, entry: &str) -> String {
    pruned(source, Some(entry))
}

fn pruned(source: &str, only_entry: Option<&str>) -> String {
    let items = split(source);
    let by_name: std::collections::HashMap<&str, usize> =
        items.iter().enumerate().filter_map(|(i, item)| Some((item.name?, i))).collect();
    let index = |name: &str| by_name.get(name).copied();
    let mut kept = vec![false; items.len()];
    let roots = |item: &Item<'_>| match (item.entry, only_entry) {
        (true, Some(only)) => item.name == Some(only),
        (entry, _) => entry || item.name.is_none(),
    };
    let mut pending: Vec<usize> = (0..items.len()).filter(|&i| roots(&items[i])).collect();
    while let Some(i) = pending.pop() {
        if std::mem::replace(&mut kept[i], true) {
            continue;
        }
        for word in identifiers(items[i].text) {
            if let Some(j) = index(word).filter(|&j| !kept[j] && j != i) {
                pending.push(j);
            }
        }
    }
    items.iter().zip(&kept).filter(|(_, keep)| **keep).map(|(item, _)| item.text).collect()
}

/// `source` with a copy of every function that reaches `mul` (the products a device that
/// flushes subnormals takes exactly), and of each of `roots` (the operators' functions a
/// guarded kernel calls), named with `_plain` after it, whose calls go to the copies and whose
/// products are `mul_plain`'s (the float unit's, for a step whose input lies in its plain
/// range: `Products::Guarded`). Entry points are not copied; the copies leave their comments
/// behind, and `prune` drops those no entry point calls. A guarded kernel calls `op_plain` or
/// `op` per Lanes, so that the plain side is straight code with no branch at each product.
///
/// A function `f` may have a form of its own for that range, `f_in_range` (the math files'
/// convention, `shaders/README.md`): `f_plain` is then copied from it, not from `f`. It leaves
/// out the cases no input in the range meets (tiny or infinite inputs, saturated tails,
/// subnormal results), so the plain side costs less than the float unit's kernel of `f`, and
/// it must give `f`'s bits wherever the range holds (`tests/unary_ops.rs` checks that on every
/// adapter that keeps subnormals).
pub(crate) fn with_plain_copies(source: &str, roots: &[&str]) -> String {
    let items = split(source);
    let functions = functions(&items);
    let reaching = reaching_mul(&functions);
    let mut out = source.to_string();
    // Every call of these goes to its copy; `mul`'s copy is `mul_plain`, which the kernel has.
    let renamed: std::collections::HashSet<&str> = functions
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !name.ends_with(IN_RANGE) && (reaching.contains(name) || roots.contains(name)))
        .collect();
    for (name, text) in functions.iter().filter(|(name, _)| *name != "mul" && renamed.contains(name)) {
        let in_range = format!("{name}{IN_RANGE}");
        let code = match functions.iter().find(|(other, _)| *other == in_range) {
            Some((_, text)) => without_comments(text).replacen(&format!("fn {in_range}("), &format!("fn {name}("), 1),
            None => without_comments(text),
        };
        let mut copy = String::with_capacity(code.len() + 64);
        let mut word = String::new();
        for c in code.chars().chain(std::iter::once('\n')) {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            copy.push_str(&word);
            if renamed.contains(word.as_str()) {
                copy.push_str("_plain");
            }
            word.clear();
            copy.push(c);
        }
        debug_assert!(copy.contains(&format!("fn {name}_plain(")));
        out.push_str(copy.trim_end());
        out.push('\n');
    }
    out
}

/// The suffix of a function's form for its plain range (`with_plain_copies`).
const IN_RANGE: &str = "_in_range";

/// The functions (not entry points) among `items`: name and text.
fn functions<'a>(items: &[Item<'a>]) -> Vec<(&'a str, &'a str)> {
    items
        .iter()
        .filter(|item| !item.entry)
        .filter_map(|item| item.name.filter(|_| without_comments(item.text).contains("fn ")).map(|n| (n, item.text)))
        .collect()
}

/// The names among `functions` that call `mul`, themselves or through others (and `mul`).
fn reaching_mul<'a>(functions: &[(&'a str, &'a str)]) -> std::collections::HashSet<&'a str> {
    let mut reaching: std::collections::HashSet<&str> = std::collections::HashSet::from(["mul"]);
    loop {
        let before = reaching.len();
        for (name, text) in functions {
            if !reaching.contains(name) && identifiers(text).any(|w| reaching.contains(w)) {
                reaching.insert(name);
            }
        }
        if reaching.len() == before {
            return reaching;
        }
    }
}

/// Those of `names` that `source`'s functions define and that reach `mul`: the operators'
/// functions whose plain copy differs from them, so that a plain range means something.
pub(crate) fn reaching_mul_of(source: &str, names: &[String]) -> Vec<String> {
    let items = split(source);
    let reaching = reaching_mul(&functions(&items));
    names.iter().filter(|name| reaching.contains(name.as_str())).cloned().collect()
}

/// The top-level items of `source`.
fn split(source: &str) -> Vec<Item<'_>> {
    let bytes = source.as_bytes();
    let mut items = Vec::new();
    let (mut start, mut depth, mut i) = (0, 0i32, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = source[i + 2..].find("*/").map_or(bytes.len(), |n| i + n + 4);
                continue;
            }
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 && bytes[i] == b'}' && !continues_after_brace(&source[i + 1..]) {
                    items.push(item(&source[start..=i]));
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                items.push(item(&source[start..=i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !source[start..].trim().is_empty() {
        items.push(Item { text: &source[start..], name: None, entry: false });
    }
    items
}

/// Whether the item goes on after a `}` at the top level (a `;` closing a struct, say).
fn continues_after_brace(rest: &str) -> bool {
    rest.trim_start_matches([' ', '\t']).starts_with(';')
}

/// The item whose text is `text`: its name and whether it is an entry point.
fn item(text: &str) -> Item<'_> {
    let code = without_comments(text);
    let entry = code.contains("@compute");
    // Attributes (`@group(0)`, `@compute`, `@workgroup_size(...)`) come before the keyword.
    let mut words = identifiers(text);
    let mut name = None;
    while let Some(word) = words.next() {
        match word {
            "fn" | "struct" | "alias" | "const" | "override" => {
                name = words.next();
                break;
            }
            // var<storage, read_write> x: ...; and var<private> x: ...: the name follows the
            // address space and access mode.
            "var" => {
                name = words
                    .find(|w| !matches!(*w, "uniform" | "storage" | "read" | "read_write" | "private" | "workgroup"));
                break;
            }
            "enable" | "requires" | "diagnostic" => break,
            _ => {}
        }
    }
    Item { text, name, entry }
}

/// `text` without its line and block comments.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The identifiers in `text` outside comments (and the numbers, harmlessly).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .flat_map(|code| code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_copies_reach_mul_plain_and_only_what_reaches_mul_is_copied() {
        let source = "fn mul(a: f32, b: f32) -> f32 { return exact(a, b); }\n\
            fn exact(a: f32, b: f32) -> f32 { return a * b; }\n\
            // Calls mul.\n\
            fn scaled(x: f32) -> f32 { return mul(x, 2.0) + other(x); }\n\
            fn other(x: f32) -> f32 { return x; }\n\
            fn op(x: f32) -> f32 { return scaled(x) * mul_add_like(x); }\n\
            fn mul_add_like(x: f32) -> f32 { return x; }\n\
            fn other_root(x: f32) -> f32 { return other(x); }\n\
            @compute @workgroup_size(1)\n\
            fn main() { op(1.0); }\n";
        let copied = with_plain_copies(source, &["op", "other_root"]);
        assert!(copied.starts_with(source));
        let added = &copied[source.len()..];
        assert!(added.contains("fn scaled_plain(x: f32) -> f32 { return mul_plain(x, 2.0) + other(x); }"), "{added}");
        assert!(added.contains("fn op_plain(x: f32) -> f32 { return scaled_plain(x) * mul_add_like(x); }"), "{added}");
        assert!(added.contains("fn other_root_plain(x: f32) -> f32 { return other(x); }"), "{added}");
        let not_copied =
            ["fn mul_plain", "fn exact_plain", "fn other_plain", "mul_add_like_plain", "Calls mul", "main_plain"];
        for not_copied in not_copied {
            assert!(!added.contains(not_copied), "{not_copied}:\n{added}");
        }
    }

    #[test]
    fn a_form_for_the_plain_range_is_what_the_plain_copy_is_made_from() {
        let source = "fn mul(a: f32, b: f32) -> f32 { return exact(a, b); }\n\
            fn exact(a: f32, b: f32) -> f32 { return a * b; }\n\
            fn tail(x: f32) -> f32 { return mul(x, 0.5); }\n\
            fn op(x: f32) -> f32 { return select(tail(x), x, x > 1.0); }\n\
            // Only where x lies in its range.\n\
            fn op_in_range(x: f32) -> f32 { return tail(x) + mul(x, 2.0); }\n\
            @compute @workgroup_size(1)\n\
            fn main() { op(1.0); }\n";
        let added = with_plain_copies(source, &["op"])[source.len()..].to_string();
        assert!(added.contains("fn op_plain(x: f32) -> f32 { return tail_plain(x) + mul_plain(x, 2.0); }"), "{added}");
        assert!(added.contains("fn tail_plain(x: f32) -> f32 { return mul_plain(x, 0.5); }"), "{added}");
        let not_copied = ["select", "op_in_range", "Only where"];
        for not_copied in not_copied {
            assert!(!added.contains(not_copied), "{not_copied}:\n{added}");
        }
    }

    #[test]
    fn keeps_what_the_entry_points_reach_and_nothing_else() {
        let source = "enable f16;\n\
            // A comment about used.\n\
            fn used(x: u32) -> u32 { return helper(x); }\n\
            fn helper(x: u32) -> u32 { return x + ONE; }\n\
            const ONE: u32 = 1u;\n\
            // Nobody calls this.\n\
            fn unused() -> u32 { return 2u; }\n\
            struct Unused { a: u32, }\n\
            @group(0) @binding(0) var<storage, read_write> words: array<u32>;\n\
            @compute @workgroup_size(1)\n\
            fn main() { words[0] = used(words[1]); }\n";
        let pruned = prune(source);
        for kept in
            ["enable f16;", "fn used", "A comment about used", "fn helper", "const ONE", "var<storage", "fn main"]
        {
            assert!(pruned.contains(kept), "{kept} is gone:\n{pruned}");
        }
        for gone in ["fn unused", "Nobody calls", "struct Unused"] {
            assert!(!pruned.contains(gone), "{gone} is kept:\n{pruned}");
        }
    }

    #[test]
    fn one_entry_keeps_its_own_bindings_and_not_the_other_entrys() {
        let source = "enable f16;\n\
            fn shared(x: u32) -> u32 { return x * 2u; }\n\
            @group(0) @binding(1) var<storage, read_write> x_words: array<u32>;\n\
            @group(0) @binding(1) var<storage, read_write> x_vectors: array<vec4<u32>>;\n\
            fn word_step(i: u32) { x_words[i] = shared(x_words[i]); }\n\
            fn vector_step(i: u32) { x_vectors[i] = vec4(shared(x_vectors[i].x)); }\n\
            @compute @workgroup_size(64)\n\
            fn rows(@builtin(global_invocation_id) id: vec3<u32>) { word_step(id.x); }\n\
            @compute @workgroup_size(64)\n\
            fn row_vectors(@builtin(global_invocation_id) id: vec3<u32>) { vector_step(id.x); }\n";
        let words = prune_to_entry(source, "rows");
        let vectors = prune_to_entry(source, "row_vectors");
        for (pruned, kept, gone) in [
            (
                &words,
                ["fn rows", "fn word_step", "x_words: array<u32>"],
                ["fn row_vectors", "fn vector_step", "x_vectors"],
            ),
            (
                &vectors,
                ["fn row_vectors", "fn vector_step", "x_vectors: array"],
                ["fn rows(", "fn word_step", "x_words"],
            ),
        ] {
            for kept in kept.into_iter().chain(["enable f16;", "fn shared"]) {
                assert!(pruned.contains(kept), "{kept} is gone:\n{pruned}");
            }
            for gone in gone {
                assert!(!pruned.contains(gone), "{gone} is kept:\n{pruned}");
            }
        }
        assert!(!prune_to_entry(source, "no_such_entry").contains("fn "), "no entry point, no functions");
        assert_eq!(prune(source).matches("@compute").count(), 2, "prune keeps every entry point");
    }
}
