//! The operators' function-body patterns ([`super::UnaryOp::expansion`]) parsed: the ONNX
//! runner matches them against a model's nodes (`onnx::plan`), and the bench evaluates them in
//! plain f32 WGSL as the yardstick of what the spec's body costs (`bench::plain`).

/// A parsed function-body pattern.
#[derive(Debug)]
pub(crate) enum Pattern {
    /// `X`, or PRelu's `slope`: a value of the graph.
    Input(String),
    /// A number: a rank-0 constant equal to it.
    Number(f64),
    /// An attribute name: a rank-0 constant whose value the attribute takes.
    Attribute(String),
    /// A node of this op type with these inputs, and attributes of its own with these values.
    Node { op: String, attributes: Vec<(String, f64)>, inputs: Vec<Pattern> },
}

impl Pattern {
    /// Parses `Where(Less(X, 0), Mul(alpha, X), X)` and the like; `inputs` are the names that
    /// stand for values of the graph.
    pub(crate) fn parse(text: &str, inputs: &[&str]) -> Option<Pattern> {
        let tokens = tokenize(text);
        let mut at = 0;
        let pattern = Self::parse_at(&tokens, &mut at, inputs)?;
        (at == tokens.len()).then_some(pattern)
    }

    fn parse_at(tokens: &[String], at: &mut usize, inputs: &[&str]) -> Option<Pattern> {
        let word = tokens.get(*at)?.clone();
        *at += 1;
        if let Ok(number) = word.parse::<f64>() {
            return Some(Pattern::Number(number));
        }
        let mut attributes = Vec::new();
        if tokens.get(*at).map(String::as_str) == Some("[") {
            while tokens.get(*at).map(String::as_str) != Some("]") {
                let (name, equals, value) = (tokens.get(*at + 1)?, tokens.get(*at + 2)?, tokens.get(*at + 3)?);
                (equals == "=").then_some(())?;
                attributes.push((name.clone(), value.parse().ok()?));
                *at += 4;
            }
            *at += 1;
        }
        if tokens.get(*at).map(String::as_str) != Some("(") {
            if !attributes.is_empty() {
                return None;
            }
            return Some(if inputs.contains(&word.as_str()) { Pattern::Input(word) } else { Pattern::Attribute(word) });
        }
        *at += 1;
        let mut operands = Vec::new();
        loop {
            operands.push(Self::parse_at(tokens, at, inputs)?);
            let separator = tokens.get(*at)?.clone();
            *at += 1;
            match separator.as_str() {
                "," => continue,
                ")" => break,
                _ => return None,
            }
        }
        Some(Pattern::Node { op: word, attributes, inputs: operands })
    }

    /// How many op nodes the pattern describes.
    pub(crate) fn nodes(&self) -> usize {
        match self {
            Pattern::Node { inputs, .. } => 1 + inputs.iter().map(Pattern::nodes).sum::<usize>(),
            _ => 0,
        }
    }
}

/// One body of an `expansion` text: its `name=value` settings, and its pattern's text.
pub(crate) type Body<'t> = (Vec<(&'t str, &'t str)>, &'t str);

/// An `expansion` text's bodies: `;`-separated, each with the `name=value` settings before its
/// `:` (the STRING attribute's choice the body is for; none where it is for every one). `None`
/// if a setting has no `=`.
pub(crate) fn bodies(text: &str) -> Option<Vec<Body<'_>>> {
    text.split(';')
        .map(|body| {
            let (settings, body) = body.split_once(':').unwrap_or(("", body));
            let settings = settings
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|setting| setting.split_once('=').map(|(name, value)| (name.trim(), value.trim())))
                .collect::<Option<Vec<_>>>()?;
            Some((settings, body))
        })
        .collect()
}

fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}
