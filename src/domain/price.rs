//! What tokens cost (SPEC §6): an operator's price per model, in US dollars
//! per million tokens, for input read fresh, input read from the prompt
//! cache, and output. Parsed once from `COMPACTD_PRICES`; a model the list
//! does not name takes the `*` entry, if there is one.

use std::collections::HashMap;

/// Dollars per million tokens of each kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

/// The largest price a million tokens may have: a typo's guard, far above
/// any model sold today.
const MOST_PER_MILLION: f64 = 10_000.0;

impl Price {
    /// What a call with these counts costs; `input` counts every input token,
    /// `cached` those of them read from the cache.
    pub fn of_call(&self, input: u64, cached: u64, output: u64) -> f64 {
        let cached = cached.min(input);
        let fresh = input - cached;
        (fresh as f64 * self.input + cached as f64 * self.cached_input + output as f64 * self.output) / 1e6
    }
}

/// The operator's prices, by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    by_model: HashMap<String, Price>,
    otherwise: Option<Price>,
}

impl Prices {
    /// Entries separated by commas or white space, each
    /// `MODEL=INPUT/CACHED_INPUT/OUTPUT` in dollars per million tokens, e.g.
    /// `gpt-4.1=2/0.5/8, claude-sonnet-4-5=3/0.3/15, *=1/0.1/4`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut prices = Self::default();
        for entry in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|e| !e.is_empty())
        {
            let Some((model, figures)) = entry.split_once('=') else {
                return Err(format!(
                    "price entry {entry:?}: expected MODEL=INPUT/CACHED_INPUT/OUTPUT"
                ));
            };
            if model.is_empty() || model.len() > 200 {
                return Err(format!(
                    "price entry {entry:?}: the model name is empty or longer than 200"
                ));
            }
            let figures: Vec<&str> = figures.split('/').collect();
            let [input, cached_input, output] = figures[..] else {
                return Err(format!(
                    "price entry {entry:?}: expected three prices (input/cached input/output, dollars per million tokens)"
                ));
            };
            let price = Price {
                input: per_million(entry, input)?,
                cached_input: per_million(entry, cached_input)?,
                output: per_million(entry, output)?,
            };
            let earlier = if model == "*" {
                prices.otherwise.replace(price)
            } else {
                prices.by_model.insert(model.to_owned(), price)
            };
            if earlier.is_some() {
                return Err(format!("price entry {entry:?}: {model} is priced twice"));
            }
        }
        Ok(prices)
    }

    /// No price is set: costs and savings are unknown, not zero.
    pub fn is_empty(&self) -> bool {
        self.by_model.is_empty() && self.otherwise.is_none()
    }

    /// The price of `model`: its own, else the `*` entry's.
    pub fn of(&self, model: Option<&str>) -> Option<Price> {
        model
            .and_then(|name| self.by_model.get(name))
            .copied()
            .or(self.otherwise)
    }
}

fn per_million(entry: &str, figure: &str) -> Result<f64, String> {
    match figure.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && (0.0..=MOST_PER_MILLION).contains(&value) => Ok(value),
        _ => Err(format!(
            "price entry {entry:?}: {figure:?} is not a price from 0 to {MOST_PER_MILLION} dollars per million tokens"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_list_names_models_and_a_fallback() {
        let prices = Prices::parse("gpt-4.1=2/0.5/8, anthropic/claude-sonnet-4.5=3/0.3/15\n*=1/0.1/4").unwrap();
        assert_eq!(prices.of(Some("gpt-4.1")).unwrap().output, 8.0);
        assert_eq!(
            prices.of(Some("anthropic/claude-sonnet-4.5")).unwrap().cached_input,
            0.3
        );
        assert_eq!(prices.of(Some("unknown")).unwrap().input, 1.0);
        assert_eq!(prices.of(None).unwrap().input, 1.0);
        assert!(!prices.is_empty());
    }

    #[test]
    fn without_a_fallback_an_unlisted_model_has_no_price() {
        let prices = Prices::parse("m=1/1/1").unwrap();
        assert_eq!(prices.of(Some("other")), None);
        assert_eq!(prices.of(None), None);
        assert!(Prices::parse("").unwrap().is_empty());
    }

    #[test]
    fn a_malformed_price_list_says_which_entry() {
        for bad in [
            "m",
            "=1/1/1",
            "m=1/1",
            "m=1/1/1/1",
            "m=a/1/1",
            "m=-1/1/1",
            "m=1/NaN/1",
            "m=1/inf/1",
            "m=1/1/20000",
            "m=1/1/1 m=2/2/2",
            "*=1/1/1,*=1/1/1",
        ] {
            let err = Prices::parse(bad).unwrap_err();
            assert!(err.starts_with("price entry"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_call_costs_its_fresh_cached_and_output_tokens_at_their_prices() {
        let price = Price {
            input: 3.0,
            cached_input: 0.3,
            output: 15.0,
        };
        // 100k input of which 80k cached, 2k output.
        let cost = price.of_call(100_000, 80_000, 2_000);
        assert!((cost - (0.06 + 0.024 + 0.03)).abs() < 1e-12, "{cost}");
        // A cached count above the input is the input, all cached.
        assert!((price.of_call(1_000, 5_000, 0) - 0.0003).abs() < 1e-12);
    }
}
