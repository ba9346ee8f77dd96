//! A run's token usage summed over its model calls, kept as plain numbers until it is read.
//!
//! Every model call of a run (and every subagent's total) is added to the run's sum, once a
//! step; the sum is read once, when the run ends. A `Usage` keeps its details as compact
//! text (`CompactMap`), so adding two of them parsed both and wrote the sum's text again each
//! step; here a call's details are scanned where they lie and added to a short list of
//! counts in first-seen order, and the text is written only when the sum is read.

use serde_json::{Map, Value};

use crate::compact_map::CompactMap;
use crate::messages::Usage;

/// One details map's sums: each key once, in the order it was first seen.
type DetailSums = Vec<(Box<str>, u64)>;

/// The sum of several `Usage`s: the three counts added, and each details map's keys added
/// value by value (a value that is not a non-negative integer counts as 0), the keys of the
/// first map that had any first. `usage` reads it as the `Usage` it stands for.
#[derive(Clone, Debug, Default)]
pub struct UsageSum {
    input_tokens: u64,
    output_tokens: u64,
    total_tokens: u64,
    input_details: Option<DetailSums>,
    output_details: Option<DetailSums>,
}

impl UsageSum {
    /// Adds one call's usage.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.total_tokens += other.total_tokens;
        add_details(&mut self.input_details, other.input_token_details.as_ref());
        add_details(
            &mut self.output_details,
            other.output_token_details.as_ref(),
        );
    }

    /// The sum as a `Usage` (details present when any call had them).
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            total_tokens: self.total_tokens,
            input_token_details: self.input_details.as_deref().map(details_map),
            output_token_details: self.output_details.as_deref().map(details_map),
        }
    }
}

fn add_details(into: &mut Option<DetailSums>, from: Option<&CompactMap>) {
    let Some(from) = from else { return };
    let sums = into.get_or_insert_with(Vec::new);
    if from.has_null_shape() {
        // Not a shape usage details come in: read whole, nulls and all.
        for (key, value) in from.to_map() {
            add_count(sums, &key, value.as_u64().unwrap_or(0));
        }
        return;
    }
    for (key, raw) in from.raw_entries() {
        // A JSON integer's text is its digits; a float, a negative number, one past u64 or
        // anything not a number does not parse, and counts as 0 (as `Value::as_u64` has it).
        add_count(sums, &key, raw.parse().unwrap_or(0));
    }
}

fn add_count(sums: &mut DetailSums, key: &str, n: u64) {
    // A handful of keys (cache reads and writes, audio, reasoning): a scan beats a map.
    match sums.iter_mut().find(|(k, _)| **k == *key) {
        Some((_, sum)) => *sum += n,
        None => sums.push((key.into(), n)),
    }
}

fn details_map(sums: &[(Box<str>, u64)]) -> CompactMap {
    let map: Map<String, Value> = sums
        .iter()
        .map(|(k, n)| (k.to_string(), Value::from(*n)))
        .collect();
    CompactMap::from(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn details(v: Value) -> Option<CompactMap> {
        match v {
            Value::Object(m) => Some(CompactMap::from(m)),
            _ => None,
        }
    }

    fn usage(i: u64, o: u64, input: Value, output: Value) -> Usage {
        Usage {
            input_tokens: i,
            output_tokens: o,
            total_tokens: i + o,
            input_token_details: details(input),
            output_token_details: details(output),
        }
    }

    /// The sum as maps would make it: parse both sides, add each key's integer (0 for any
    /// other value), the running sum's keys first and new keys after, in the order met.
    fn by_maps(into: &mut Usage, other: &Usage) {
        fn merge(into: &mut Option<CompactMap>, from: &Option<CompactMap>) {
            let Some(from) = from else { return };
            let mut sum = into.as_ref().map(CompactMap::to_map).unwrap_or_default();
            for (k, v) in from.to_map() {
                let cur = sum.get(&k).and_then(Value::as_u64).unwrap_or(0);
                sum.insert(k, Value::from(cur + v.as_u64().unwrap_or(0)));
            }
            *into = Some(CompactMap::from(sum));
        }
        into.input_tokens += other.input_tokens;
        into.output_tokens += other.output_tokens;
        into.total_tokens += other.total_tokens;
        merge(&mut into.input_token_details, &other.input_token_details);
        merge(&mut into.output_token_details, &other.output_token_details);
    }

    /// Calls' usages summed as plain numbers read back as the map arithmetic's sum after
    /// every call: the same counts, the same details, their keys in the same order and the
    /// same JSON text (what `usage_metadata` shows), odd values and escaped keys included.
    #[test]
    fn sums_as_the_maps_would() {
        let calls = [
            usage(10, 2, Value::Null, Value::Null),
            usage(
                100,
                5,
                json!({"cache_read": 40, "cache_creation": 3, "ephemeral_5m_input_tokens": 0}),
                json!({"reasoning": 4}),
            ),
            usage(
                7,
                1,
                json!({"audio": 2, "cache_read": 1, "odd\"key": 9, "nested": {"a": 1}}),
                Value::Null,
            ),
            usage(
                1,
                1,
                json!({"cache_creation": 5, "big": 18446744073709551615u64, "f": 1.5, "e": 1e20, "neg": -3, "s": "7"}),
                json!({"reasoning": 0, "audio": 6, "t": true, "n": null}),
            ),
            usage(3, 0, json!({}), json!({"audio": 1})),
        ];
        let mut sum = UsageSum::default();
        let mut expected = Usage::default();
        for call in &calls {
            sum.add(call);
            by_maps(&mut expected, call);
            let got = sum.usage();
            assert_eq!(got, expected);
            for (a, b) in [
                (&got.input_token_details, &expected.input_token_details),
                (&got.output_token_details, &expected.output_token_details),
            ] {
                let keys = |d: &Option<CompactMap>| {
                    d.as_ref()
                        .map(|d| d.to_map().keys().cloned().collect::<Vec<_>>())
                };
                assert_eq!(keys(a), keys(b));
            }
            assert_eq!(
                serde_json::to_string(&got).ok(),
                serde_json::to_string(&expected).ok()
            );
        }
        assert_eq!(sum.usage().total_tokens, 130);
    }
}
