//! Park, the last step of fitting: the placed items and narrative
//! assembled, giving way in a fixed order until the whole, counted exactly,
//! fits.

use super::place::Placed;
use super::rank::Ranked;
use crate::summary::keep::set::Tier;
use crate::summary::write::arrangement::Arrangement;
use crate::summary::write::budget::Fitted;
use crate::summary::write::narrative::{Shape, fit_narrative};

impl<'a> Ranked<'a> {
    /// Park: assemble, and give way until the whole, counted exactly, fits:
    /// the tiers past the narrative first, then the narrative, then tiers 4
    /// and 3, then where things stand, then rules; never the request.
    pub(super) fn park(&self, placed: Placed, stopped: &dyn Fn() -> bool) -> Option<Fitted> {
        let Placed {
            mut admitted,
            narrative: mut fitted_narrative,
        } = placed;
        let mut state_lines = self.state_lines.clone();
        let candidates = &self.candidates;
        // Asked again only when the narrative or the lines change: most
        // turns of the loop only park an item (a keep set may hold thousands).
        let mut shown_for: Option<(String, usize, Vec<String>)> = None;
        loop {
            if !shown_for
                .as_ref()
                .is_some_and(|(narrative, lines, _)| *narrative == fitted_narrative && *lines == state_lines.len())
            {
                let shown = self.shown_state(&fitted_narrative, &state_lines);
                shown_for = Some((fitted_narrative.clone(), state_lines.len(), shown));
            }
            let shown = shown_for.as_ref().map_or(&[][..], |(_, _, shown)| shown.as_slice());
            let arrangement = Arrangement {
                candidates,
                admitted: &admitted,
                narrative: &fitted_narrative,
                state_lines: shown,
                by_model: self.parts.by_model,
                lines: self.parts.shape == Shape::Lines,
                beside: &self.beside,
                conversation: self.parts.conversation,
                folders: &self.folders,
                finder: &self.finder,
                stopped,
            };
            let (text, figures) = arrangement.settle(
                &self.read(&fitted_narrative, shown),
                &self.reading(&fitted_narrative, shown, false),
            )?;
            let tokens = (self.count)(&text);
            if tokens <= self.max_tokens {
                return Some(Fitted { text, tokens, figures });
            }
            if let Some(position) = admitted.iter().rposition(|at| candidates[*at].tier > Tier::FileChanged) {
                admitted.remove(position);
                continue;
            }
            if !fitted_narrative.is_empty() {
                let smaller = (self.count)(&fitted_narrative) * 9 / 10;
                fitted_narrative = fit_narrative(self.parts.narrative, self.parts.shape, smaller, self.count);
                if smaller == 0 {
                    fitted_narrative.clear();
                }
                continue;
            }
            if let Some(position) = admitted.iter().rposition(|at| candidates[*at].tier > Tier::Prohibition) {
                admitted.remove(position);
                continue;
            }
            if state_lines.pop().is_some() {
                continue;
            }
            match admitted.iter().rposition(|at| candidates[*at].tier != Tier::Request) {
                Some(position) => {
                    admitted.remove(position);
                }
                None => return Some(Fitted { text, tokens, figures }),
            }
        }
    }
}
