//! The file tools' arguments, validated as their pydantic schemas validate them (lax mode:
//! numeric strings and whole floats are integers), with pydantic's error wording.

use serde_json::{Map, Value};

pub struct Args<'a> {
    map: Option<&'a Map<String, Value>>,
    pub errors: Vec<String>,
}

impl<'a> Args<'a> {
    pub fn new(args: &'a Value) -> Self {
        Args {
            map: args.as_object(),
            errors: Vec::new(),
        }
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(name))
    }

    pub fn string(&mut self, name: &str) -> String {
        match self.get(name) {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                self.errors
                    .push(format!("{name}: Input should be a valid string"));
                String::new()
            }
            None => {
                self.errors.push(format!("{name}: Field required"));
                String::new()
            }
        }
    }

    pub fn opt_string(&mut self, name: &str) -> Option<String> {
        match self.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.errors
                    .push(format!("{name}: Input should be a valid string"));
                None
            }
        }
    }

    pub fn int(&mut self, name: &str, default: i64) -> i64 {
        match self.get(name) {
            None => default,
            Some(v) => lax_int(v).unwrap_or_else(|msg| {
                self.errors.push(format!("{name}: {msg}"));
                default
            }),
        }
    }

    pub fn opt_int(&mut self, name: &str) -> Option<i64> {
        match self.get(name) {
            None | Some(Value::Null) => None,
            Some(v) => match lax_int(v) {
                Ok(n) => Some(n),
                Err(msg) => {
                    self.errors.push(format!("{name}: {msg}"));
                    None
                }
            },
        }
    }

    pub fn bool(&mut self, name: &str, default: bool) -> bool {
        match self.get(name) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => {
                n.as_i64() == Some(1)
            }
            Some(Value::String(s)) => match s.to_lowercase().as_str() {
                "true" | "1" | "yes" | "y" | "on" | "t" => true,
                "false" | "0" | "no" | "n" | "off" | "f" => false,
                _ => {
                    self.errors.push(format!(
                        "{name}: Input should be a valid boolean, unable to interpret input"
                    ));
                    default
                }
            },
            Some(_) => {
                self.errors
                    .push(format!("{name}: Input should be a valid boolean"));
                default
            }
        }
    }

    pub fn literal(&mut self, name: &str, choices: &[&str], default: &str) -> String {
        match self.get(name) {
            None => default.to_owned(),
            Some(Value::String(s)) if choices.contains(&s.as_str()) => s.clone(),
            Some(_) => {
                let quoted: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
                if let Some((last, rest)) = quoted.split_last() {
                    self.errors.push(format!(
                        "{name}: Input should be {} or {last}",
                        rest.join(", ")
                    ));
                }
                default.to_owned()
            }
        }
    }
}

fn lax_int(v: &Value) -> Result<i64, &'static str> {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i)
            } else if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0) {
                Ok(f as i64)
            } else {
                Err("Input should be a valid integer, got a number with a fractional part")
            }
        }
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .map_err(|_| "Input should be a valid integer, unable to parse string as an integer"),
        Value::Bool(b) => Ok(*b as i64),
        _ => Err("Input should be a valid integer"),
    }
}
