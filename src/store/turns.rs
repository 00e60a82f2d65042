//! Reading stored turns: since the boundary (what /summarize summarizes),
//! the latest ones (what /handoff quotes), and from a bookmark or by search
//! (what an agent's `search_history` reads).

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};

use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::{ConversationId, TenantId};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Its id: 1, 2, 3… within the conversation (the bookmark).
    pub seq: i64,
    pub at: DateTime<Utc>,
    pub user_messages: u64,
    pub user: Option<String>,
    pub assistant: Option<String>,
    /// How much it matters, 1–5 (SPEC §5), and who said so; `None` until scored.
    pub score: Option<u8>,
    pub score_source: Option<String>,
    /// Out of the live context since an audit (still stored and readable).
    pub evicted: bool,
    /// The texts' whole lengths in characters: a list reads each text's
    /// first [`LISTED_CHARS`] only (issue 23).
    pub user_chars: Option<u64>,
    pub assistant_chars: Option<u64>,
}

impl Turn {
    /// A text was cut for a list: the whole turn is read on its own.
    pub fn is_clipped(&self) -> bool {
        let cut = |text: &Option<String>, chars: Option<u64>| {
            text.as_ref()
                .zip(chars)
                .is_some_and(|(text, chars)| (text.chars().count() as u64) < chars)
        };
        cut(&self.user, self.user_chars) || cut(&self.assistant, self.assistant_chars)
    }
}

/// Each text of a turn as a list reads it, in characters: a page of
/// turns stays small however large each turn is.
pub(crate) const LISTED_CHARS: usize = 16_384;

/// A `turns` row as [`COLUMNS`] or [`listed_columns`] reads it.
#[derive(sqlx::FromRow)]
struct TurnRow {
    seq: i64,
    at: DateTime<Utc>,
    user_messages: i64,
    user_text: Option<String>,
    assistant_text: Option<String>,
    // Lists read the whole lengths beside the cut texts (the outer `None`:
    // not read); other reads have the texts whole.
    #[sqlx(default)]
    user_chars: Option<Option<i32>>,
    #[sqlx(default)]
    assistant_chars: Option<Option<i32>>,
    score: Option<i16>,
    score_source: Option<String>,
    evicted: bool,
}

impl From<TurnRow> for Turn {
    fn from(row: TurnRow) -> Self {
        let length = |chars: Option<Option<i32>>, text: &Option<String>| match chars {
            Some(chars) => chars.map(|chars| u64::try_from(chars).unwrap_or(0)),
            None => text.as_ref().map(|text| text.chars().count() as u64),
        };
        Self {
            seq: row.seq,
            at: row.at,
            user_messages: count_of(row.user_messages),
            user_chars: length(row.user_chars, &row.user_text),
            assistant_chars: length(row.assistant_chars, &row.assistant_text),
            user: row.user_text,
            assistant: row.assistant_text,
            score: row.score.and_then(|score| u8::try_from(score).ok()),
            score_source: row.score_source,
            evicted: row.evicted,
        }
    }
}

const COLUMNS: &str = "seq, at, user_messages, user_text, assistant_text, score, score_source, evicted";
/// [`COLUMNS`] as a list reads them: each text's first [`LISTED_CHARS`],
/// and its whole length.
fn listed_columns() -> String {
    format!(
        "seq, at, user_messages, left(user_text, {LISTED_CHARS}) AS user_text, \
         left(assistant_text, {LISTED_CHARS}) AS assistant_text, char_length(user_text) AS user_chars, \
         char_length(assistant_text) AS assistant_chars, score, score_source, evicted"
    )
}

/// The turns after `boundary`, oldest first.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn since(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    boundary: i64,
) -> StoreResult<Vec<Turn>> {
    let rows = statements::query_as::<TurnRow>(&format!(
        "SELECT {COLUMNS} FROM turns WHERE tenant = $1 AND conversation_id = $2 AND seq > $3 ORDER BY seq"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(boundary)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.into_iter().map(Turn::from).collect())
}

/// The newest turns at or before `from` (all when `None`), newest first.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn back_from(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    from: Option<i64>,
    limit: i64,
) -> StoreResult<Vec<Turn>> {
    let rows = statements::query_as::<TurnRow>(&format!(
        "SELECT {} FROM turns
          WHERE tenant = $1 AND conversation_id = $2 AND seq <= COALESCE($3, 9223372036854775807)
          ORDER BY seq DESC LIMIT $4",
        listed_columns()
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(from)
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.into_iter().map(Turn::from).collect())
}

/// The words of the turns before `before`, newest first, a page of `limit`
/// at most: each turn's user and assistant text as one string.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn words_before(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    before: i64,
    limit: i64,
) -> StoreResult<Vec<(i64, String)>> {
    let words = statements::query_as::<(i64, String)>(
        "SELECT seq, concat_ws(E'\\n', user_text, assistant_text) AS words FROM turns
          WHERE tenant = $1 AND conversation_id = $2 AND seq < $3
          ORDER BY seq DESC LIMIT $4",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(before)
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(words)
}

/// One turn, whole.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn one(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    seq: i64,
) -> StoreResult<Option<Turn>> {
    let row = statements::query_as::<TurnRow>(&format!(
        "SELECT {COLUMNS} FROM turns WHERE tenant = $1 AND conversation_id = $2 AND seq = $3"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(seq)
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(row.map(Turn::from))
}

/// The newest turns whose user (or assistant) text is present, newest first.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn latest_with(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    column: Said,
    limit: i64,
) -> StoreResult<Vec<Turn>> {
    let present = match column {
        Said::User => "user_text IS NOT NULL AND btrim(user_text) <> ''",
        Said::Assistant => "assistant_text IS NOT NULL AND btrim(assistant_text) <> ''",
    };
    let rows = statements::query_as::<TurnRow>(&format!(
        "SELECT {COLUMNS} FROM turns WHERE tenant = $1 AND conversation_id = $2 AND {present}
          ORDER BY seq DESC LIMIT $3"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.into_iter().map(Turn::from).collect())
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Said {
    User,
    Assistant,
}

/// Turns matching `query`, best first: Postgres's own text search (the
/// `simple` configuration, so every language is at least split into words)
/// over each turn's stored vector and, past what that covers, the vectors
/// of its pieces (a long turn matches where one of them matches the whole
/// query), through their indexes (the pieces' matches are read first, once,
/// so the turns are found by index scans, not a probe per turn); and a
/// plain substring match where words cannot serve: a query in a script
/// written without spaces, or a long turn whose pieces the background has
/// yet to write.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn search(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    query: &str,
    from: Option<i64>,
    limit: i64,
) -> StoreResult<Vec<Turn>> {
    // Planned for the words searched: the pool's generic plan reads every turn.
    let mut tx = conn.begin().await?;
    statements::query("SELECT set_config('plan_cache_mode', 'force_custom_plan', true)")
        .execute(&mut *tx)
        .await?;
    let rows = statements::query_as::<TurnRow>(&format!(
        "SELECT {} FROM turns
          WHERE tenant = $1 AND conversation_id = $2 AND seq <= COALESCE($4, 9223372036854775807)
            AND (search @@ websearch_to_tsquery('simple', $3)
                 OR seq = ANY(ARRAY(SELECT DISTINCT seq FROM turn_search_pieces
                                     WHERE tenant = $1 AND conversation_id = $2
                                       AND search @@ websearch_to_tsquery('simple', translate($3, '/\\.', '   '))))
                 OR (($6 OR seq = ANY(ARRAY(SELECT seq FROM turn_pieces_due
                                            WHERE tenant = $1 AND conversation_id = $2)))
                     AND strpos(lower(coalesce(user_text, '') || ' ' || coalesce(assistant_text, '')), lower($3)) > 0))
          ORDER BY ts_rank(search, websearch_to_tsquery('simple', $3)) DESC, seq DESC
          LIMIT $5",
        listed_columns()
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(query)
    .bind(from)
    .bind(limit)
    .bind(written_without_spaces(query))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(rows.into_iter().map(Turn::from).collect())
}

/// Whether `query` holds a letter of a script written without spaces (Han,
/// kana, Thai, Lao, Khmer, Myanmar, Tibetan), which the word search takes
/// whole runs of as one word.
fn written_without_spaces(query: &str) -> bool {
    query.chars().any(|c| {
        matches!(u32::from(c),
            0x0E00..=0x0EFF | 0x0F00..=0x0FFF | 0x1000..=0x109F | 0x1780..=0x17FF
            | 0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
    })
}

/// The newest `limit` live (not evicted) turns, oldest first, as a list
/// reads them (each text its first [`LISTED_CHARS`]).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn recent_live(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    limit: i64,
) -> StoreResult<Vec<Turn>> {
    let rows = statements::query_as::<TurnRow>(&format!(
        "SELECT {} FROM (
           SELECT * FROM turns WHERE tenant = $1 AND conversation_id = $2 AND NOT evicted ORDER BY seq DESC LIMIT $3
         ) newest ORDER BY seq",
        listed_columns()
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.into_iter().map(Turn::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_scripts_without_spaces_need_the_substring_match() {
        for spaced in [
            "billing",
            "src/store/turns.rs",
            "\"database password\"",
            "Привет мир",
            "한국어 검색",
        ] {
            assert!(!written_without_spaces(spaced), "{spaced}");
        }
        for unspaced in ["生產環境", "データベース", "ภาษาไทย", "ok 刪除"] {
            assert!(written_without_spaces(unspaced), "{unspaced}");
        }
    }
}
