//! Python's `str.format` with keyword slots only, as deepagents fills its middleware's
//! prompt templates (`template.format(agent_memory=...)`, `template.format(skills_list=...)`).

/// Why a template could not be filled.
#[derive(Debug, PartialEq, Eq)]
pub enum FillError {
    /// Python's `ValueError` for an unbalanced brace, with its message.
    Syntax(&'static str),
    /// A `{field}` no slot fills (Python's `KeyError`).
    Unknown(String),
}

/// `template.format(**slots)`: `{{`/`}}` are literal braces and `{name}` the slot's value.
pub fn fill(template: &str, slots: &[(&str, &str)]) -> Result<String, FillError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let brace = &rest[at..at + 1];
        let after = &rest[at + 1..];
        if after.starts_with(brace) {
            out.push_str(brace);
            rest = &after[1..];
            continue;
        }
        if brace == "}" {
            return Err(FillError::Syntax("Single '}' encountered in format string"));
        }
        let Some(end) = after.find('}') else {
            return Err(FillError::Syntax("expected '}' before end of string"));
        };
        let field = &after[..end];
        match slots.iter().find(|(name, _)| *name == field) {
            Some((_, value)) => out.push_str(value),
            None => return Err(FillError::Unknown(field.to_owned())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_like_str_format() {
        assert_eq!(
            fill("<{a}> {{x}} {b}", &[("a", "A"), ("b", "B")]).unwrap(),
            "<A> {x} B"
        );
        assert_eq!(
            fill("{other}", &[("a", "A")]),
            Err(FillError::Unknown("other".into()))
        );
        assert!(matches!(
            fill("a } {a}", &[("a", "A")]),
            Err(FillError::Syntax(_))
        ));
        assert!(matches!(
            fill("{a", &[("a", "A")]),
            Err(FillError::Syntax(_))
        ));
    }
}
