//! The shader text each chain step contributes, and the one template mechanism that fills it in.

use std::fmt::Write as _;

use super::Products;
use crate::broadcast::SlopeAccess;

/// A unary step's statement on the group `b`: `function` with `attributes`, or where `products`
/// test plain ranges (`range`: the step's), its `_plain` copy where `b` lies in the range, and
/// outside it `function` itself (one pass) or a flag for the second pass (the first of two).
pub(super) fn unary_call(function: &str, attributes: &str, range: Option<&str>, products: Products) -> String {
    let in_range = range.map(|range| format!("in_plain_range(to_compute(b), {range})"));
    guarded_call(function, &format!("b, {attributes}"), in_range.as_deref(), products)
}

/// `b = function(arguments)`, or where `in_range` (the step's plain-range test) is given, the
/// `_plain` copy in its range and, outside it, `function` (one pass) or a flag for the second
/// pass (the first of two).
fn guarded_call(function: &str, arguments: &str, in_range: Option<&str>, products: Products) -> String {
    let call = format!("b = {function}({arguments});");
    let plain = format!("b = {function}_plain({arguments});");
    match in_range {
        Some(test) if products.first_of_two_passes() => format!("needs_exact = needs_exact | !{test}; {plain}"),
        Some(test) => format!("if ({test}) {{ {plain} }} else {{ {call} }}"),
        None => call,
    }
}

/// The text each chain step contributes to the driver's placeholders.
#[derive(Default)]
pub(super) struct StepText {
    pub(super) slopes: String,
    /// Per-invocation state for `rest`, the tail and the second pass, which find it from
    /// `first_element`, and for main, `main_prepare`, which may also take it from its grid.
    pub(super) prepare: String,
    pub(super) main_prepare: String,
    pub(super) main: String,
    pub(super) tail: String,
    pub(super) advance: String,
}

impl StepText {
    /// A statement of per-invocation state that every pass makes alike.
    pub(super) fn prepare_all(&mut self, statement: &str) {
        let _ = writeln!(self.prepare, "    {statement}");
        let _ = writeln!(self.main_prepare, "    {statement}");
    }

    /// A statement that reads the same in the main pass and the tail.
    pub(super) fn both(&mut self, statement: &str) {
        let _ = writeln!(self.main, "            {statement}");
        let _ = writeln!(self.tail, "        {statement}");
    }

    /// The SwiGLU step at chain position `k`, calling its kernel function `function`: its B has
    /// X's shape ([`SlopeAccess::Same`]). Where `range` (its A's plain range) is given, guarded
    /// as `products` guard, A and its product with B tested (`in_gated_plain_range`).
    pub(super) fn gate(&mut self, k: usize, function: &str, range: Option<&str>, products: Products) {
        let in_range = range.map(|range| format!("in_gated_plain_range(to_compute(b), to_compute(gate_{k}), {range})"));
        let call = guarded_call(function, &format!("b, gate_{k}, attributes_{k}"), in_range.as_deref(), products);
        let _ = writeln!(self.main, "            {{ let gate_{k} = group(slope_vectors_{k}[v], g); {call} }}");
        let _ = writeln!(self.tail, "        {{ let gate_{k} = slope_same_{k}(element, g); {call} }}");
    }

    /// How the PRelu step at chain position `k` gathers its slope, per [`SlopeAccess`].
    pub(super) fn prelu(&mut self, k: usize, access: SlopeAccess) {
        match access {
            SlopeAccess::Scalar => {
                self.prepare_all(&format!("let scalar_{k} = slope_scalar_{k}();"));
                self.both(&format!("b = prelu(b, scalar_{k});"));
            }
            SlopeAccess::Same => {
                let _ = writeln!(self.main, "            b = prelu(b, group(slope_vectors_{k}[v], g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_same_{k}(element, g));");
            }
            SlopeAccess::Channel | SlopeAccess::ChannelAligned => {
                self.prepare_all(&format!("var cursor_{k} = slope_cursor_{k}(first_element);"));
                if access == SlopeAccess::Channel {
                    self.both(&format!("b = prelu(b, slope_channel_{k}(cursor_{k}, g));"));
                } else {
                    self.both(&format!("b = prelu(b, slope_channel_aligned_{k}(cursor_{k}));"));
                }
                let _ = writeln!(self.advance, "        cursor_{k} = slope_jump_{k}(cursor_{k});");
            }
            SlopeAccess::Trailing => {
                self.prepare_all(&format!("var cursor_{k} = slope_cursor_{k}(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_trailing_{k}(cursor_{k}, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_channel_{k}(cursor_{k}, g));");
                let _ = writeln!(self.advance, "        cursor_{k} = slope_jump_{k}(cursor_{k});");
            }
            SlopeAccess::ChannelUniform | SlopeAccess::ChannelGrid => {
                let uniform = format!("let uniform_{k} = slope_channel_aligned_{k}(slope_cursor_{k}(first_element));");
                if access == SlopeAccess::ChannelGrid {
                    let _ = writeln!(self.prepare, "    {uniform}");
                    let _ = writeln!(self.main_prepare, "    let uniform_{k} = slope_channel_grid_{k}(workgroup.x);");
                } else {
                    self.prepare_all(&uniform);
                }
                self.both(&format!("b = prelu(b, uniform_{k});"));
            }
            SlopeAccess::Blocked { .. } => {
                self.prepare_all(&format!("var general_{k} = block_cursor(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_blocked_at_{k}(general_{k}, k, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_blocked_{k}(element, g));");
                let _ = writeln!(self.advance, "        general_{k} = slope_blocked_jump_{k}(general_{k});");
            }
            SlopeAccess::General => {
                self.prepare_all(&format!("var general_{k} = general_cursor(first_element);"));
                let _ = writeln!(self.main, "            b = prelu(b, slope_general_at_{k}(general_{k}, g));");
                let _ = writeln!(self.tail, "        b = prelu(b, slope_general_{k}(element, g));");
                let _ = writeln!(self.advance, "        general_{k} = slope_general_jump_{k}(general_{k});");
            }
        }
    }
}

/// The one template mechanism of the WGSL expansion: every `{{NAME}}` of `fills` in the code of
/// `template` becomes its text; a line holding a placeholder alone becomes the text's lines as
/// they are. Comment lines stay as they are: their mentions document the placeholders.
pub(crate) fn fill(template: &str, fills: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    for line in template.lines() {
        if line.trim_start().starts_with("//") {
            out.push_str(line);
        } else if let Some((_, text)) = fills.iter().find(|(placeholder, _)| line.trim() == *placeholder) {
            out.push_str(text.trim_end_matches('\n'));
        } else {
            let mut line = line.to_string();
            for (placeholder, text) in fills {
                line = line.replace(placeholder, text);
            }
            out.push_str(&line);
        }
        out.push('\n');
    }
    out
}

/// `text` without its comment lines (a template's part that is repeated).
pub(crate) fn without_comments(text: &str) -> String {
    text.lines().filter(|line| !line.trim_start().starts_with("//")).map(|line| format!("{line}\n")).collect()
}

/// The f64 arithmetic's constants, written `{{F64 <decimal>}}` (`shaders/math/f64.wgsl`), spelled
/// for the path: a literal of the native f64 type, or the value's (low, high) u32 pair for the
/// software one. A decimal that is not a number is left as it was, and naga's parse names it.
pub(crate) fn f64_constants(text: &str, native: bool) -> String {
    const OPEN: &str = "{{F64 ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let Some(end) = after.find("}}") else { break };
        match after[..end].trim().parse::<f64>() {
            Ok(value) if native => {
                let _ = write!(out, "{value:e}");
            }
            Ok(value) => out.push_str(&u64_literal(value.to_bits())),
            Err(_) => out.push_str(&rest[start..start + OPEN.len() + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A 64-bit value as the software f64 path's WGSL `U64` literal (its two words, low first).
pub(crate) fn u64_literal(bits: u64) -> String {
    let [low, high] = crate::dtype::words_of_u64(bits);
    format!("U64({low:#010x}u, {high:#010x}u)")
}
