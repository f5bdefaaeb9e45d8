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
    let items = split(source);
    let by_name: std::collections::HashMap<&str, usize> =
        items.iter().enumerate().filter_map(|(i, item)| Some((item.name?, i))).collect();
    let index = |name: &str| by_name.get(name).copied();
    let mut kept = vec![false; items.len()];
    let mut pending: Vec<usize> = (0..items.len()).filter(|&i| items[i].entry || items[i].name.is_none()).collect();
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
}
