//! What a call's tokens cost (SPEC §6): how `/usage` prices the tokens a
//! compaction spared the call, as the store accrues them on the hot path.

use super::Saving;
use crate::domain::{ModelName, Prices};
use crate::policy::UsageReport;

/// What a call's input cost a token, and how it read its input: what the
/// tokens a compaction spared it are priced by (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CallPricing {
    /// Dollars a token of input read from the cache, and read fresh; `None`:
    /// the call's model has no price.
    pub per_token: Option<(f64, f64)>,
    /// The input it read fresh; `None`: it gave no counts.
    pub fresh_input: Option<u64>,
    /// It read some input from the cache (its cache was warm); `None`: unknown.
    pub warm: Option<bool>,
}

impl CallPricing {
    pub(crate) fn of(prices: &Prices, model: Option<&ModelName>, report: &UsageReport) -> Self {
        let per_token = prices
            .of(model.map(ModelName::as_str))
            .map(|price| (price.cached_input / 1e6, price.input / 1e6));
        let fresh_input = report
            .input
            .map(|input| input - report.cached_read.unwrap_or(0).min(input));
        let warm = match (report.input, report.cached_read) {
            (Some(input), Some(cached)) if input > 0 => Some(cached > 0),
            _ => None,
        };
        Self {
            per_token,
            fresh_input,
            warm,
        }
    }

    /// What this call saved in dollars, and of that what the cache's rewrite
    /// cost, after the compaction `saving` (the store's SQL twin is
    /// `transitions::RECORD_USAGE`): the spared tokens were the old prefix,
    /// which the cache would have served had it been warm. The first call
    /// after a compaction writes the new prefix afresh where it would have
    /// read the old one (unless the cache had lapsed: an idle compaction); a
    /// later call that read nothing from the cache would have read the spared
    /// tokens fresh too. Unknown counts take the reading that saves less.
    pub(crate) fn spared(&self, saving: &Saving, first: bool) -> Option<(f64, f64)> {
        let (cached, fresh) = self.per_token?;
        let tokens = saving.per_call as f64;
        Some(if first && saving.warm {
            let rewritten = self.fresh_input.unwrap_or(saving.prefix).min(saving.prefix) as f64;
            let rewrite = rewritten * (fresh - cached);
            (tokens * cached - rewrite, rewrite)
        } else if first || self.warm == Some(false) {
            (tokens * fresh, 0.0)
        } else {
            (tokens * cached, 0.0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(input: Option<u64>, cached_read: Option<u64>) -> UsageReport {
        UsageReport {
            used: 1,
            size: None,
            input,
            cached_read,
            cache_written: None,
            output: None,
            cache_life: None,
            context_pressure_tokens: None,
        }
    }

    fn saving(warm: bool) -> Saving {
        Saving {
            seq: 1,
            per_call: 100_000,
            prefix: 20_000,
            warm,
            calls_so_far: 0,
        }
    }

    fn spared(report: UsageReport, warm: bool, first: bool) -> Option<(f64, f64)> {
        let prices = Prices::parse("m=3/0.3/15").unwrap();
        let m = ModelName::parse("model", "m".into()).unwrap();
        CallPricing::of(&prices, Some(&m), &report)
            .spared(&saving(warm), first)
            .map(|(usd, rewrite)| ((usd * 1e6).round() / 1e6, (rewrite * 1e6).round() / 1e6))
    }

    #[test]
    fn a_later_call_saves_its_spared_tokens_at_the_cached_price_while_its_cache_is_warm() {
        assert_eq!(
            spared(report(Some(30_000), Some(25_000)), true, false),
            Some((0.03, 0.0))
        );
        // Unknown counts: the cheaper reading.
        assert_eq!(spared(report(None, None), true, false), Some((0.03, 0.0)));
        // Its cache had lapsed: the spared tokens would have been read fresh.
        assert_eq!(spared(report(Some(30_000), Some(0)), true, false), Some((0.3, 0.0)));
    }

    #[test]
    fn the_first_call_after_a_compaction_pays_for_rewriting_the_cache() {
        // 18k of the new 20k prefix written fresh, where 0.3 would have read it.
        assert_eq!(
            spared(report(Some(21_000), Some(3_000)), true, true),
            Some((0.03 - 0.0486, 0.0486))
        );
        // No counts: the whole prefix counts as rewritten.
        assert_eq!(spared(report(None, None), true, true), Some((0.03 - 0.054, 0.054)));
        // After an idle compaction the cache had lapsed anyway: no rewrite,
        // and the spared tokens would have been read fresh.
        assert_eq!(spared(report(Some(21_000), Some(0)), false, true), Some((0.3, 0.0)));
    }

    #[test]
    fn a_model_without_a_price_spares_tokens_but_no_dollars() {
        let pricing = CallPricing::of(&Prices::default(), None, &report(Some(1), Some(1)));
        assert_eq!(pricing.spared(&saving(true), false), None);
    }
}
