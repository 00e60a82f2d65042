//! The keys, in memory: looked up on every request without a database round
//! trip, refreshed whenever the table changes (its trigger NOTIFYs) and, as a
//! backstop, every little while; an unknown id also refreshes it (rate
//! limited), so a key created a moment ago works at once.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::http::HeaderValue;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;

use super::{Caller, key};
use crate::domain::{Role, TenantId};
use crate::store::{StoreResult, keys};

/// How often the keys are re-read even without a notification.
const BACKSTOP: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Denied {
    #[error("this service needs an API key: send Authorization: Bearer <key>")]
    Missing,
    #[error("the Authorization header is not a compactd API key (Bearer cpk_…)")]
    Malformed,
    #[error("the API key is not valid")]
    Unknown,
    #[error("the API key was revoked")]
    Revoked,
}

struct Entry {
    tenant: TenantId,
    role: Role,
    secret_hash: Vec<u8>,
    revoked: bool,
}

pub struct KeyRegistry {
    pool: PgPool,
    keys: RwLock<Arc<HashMap<String, Entry>>>,
    last_reload: Mutex<Instant>,
    /// Counts re-reads, so a watcher can tell when a change has been taken in.
    generation: watch::Sender<u64>,
}

impl KeyRegistry {
    pub async fn load(pool: PgPool) -> StoreResult<Arc<Self>> {
        let registry = Arc::new(Self {
            pool,
            keys: RwLock::new(Arc::default()),
            last_reload: Mutex::new(Instant::now()),
            generation: watch::Sender::new(0),
        });
        registry.reload().await?;
        Ok(registry)
    }

    fn snapshot(&self) -> Arc<HashMap<String, Entry>> {
        self.keys
            .read()
            .map(|keys| keys.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    /// Open mode: no key was ever created, so every caller is the `default`
    /// tenant. Once one exists (even revoked), every request needs a key.
    pub fn is_open(&self) -> bool {
        self.snapshot().is_empty()
    }

    pub async fn reload(&self) -> StoreResult<()> {
        let mut last = self.last_reload.lock().await;
        let fresh = self.read_all().await?;
        self.replace(fresh);
        *last = Instant::now();
        Ok(())
    }

    fn replace(&self, fresh: HashMap<String, Entry>) {
        match self.keys.write() {
            Ok(mut keys) => *keys = Arc::new(fresh),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(fresh),
        }
        self.generation.send_modify(|generation| *generation += 1);
    }

    /// Changes each time the keys are re-read.
    pub fn generations(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    async fn read_all(&self) -> StoreResult<HashMap<String, Entry>> {
        let mut conn = self.pool.acquire().await?;
        let stored = keys::all(&mut conn).await?;
        let fresh: HashMap<String, Entry> = stored
            .into_iter()
            .filter_map(|key| {
                let entry = Entry {
                    tenant: TenantId::parse("tenant", &key.tenant).ok()?,
                    role: Role::parse("role", &key.role).ok()?,
                    secret_hash: key.secret_hash,
                    revoked: key.revoked_at.is_some(),
                };
                Some((key.id, entry))
            })
            .collect();
        Ok(fresh)
    }

    /// Re-reads the keys after a miss at `looked`, unless a re-read finished
    /// since then (misses at the same moment share one re-read).
    async fn reload_after_miss(&self, looked: Instant) {
        let mut last = self.last_reload.lock().await;
        if *last > looked {
            return;
        }
        match self.read_all().await {
            Ok(fresh) => {
                self.replace(fresh);
                *last = Instant::now();
            }
            Err(err) => tracing::warn!(%err, "could not re-read the API keys"),
        }
    }

    /// Who sends `authorization`.
    pub async fn authenticate(&self, authorization: Option<&HeaderValue>) -> Result<Caller, Denied> {
        let looked = Instant::now();
        if self.is_open() {
            // Open mode ignores what is sent, but a well-formed key may be
            // one created a moment ago: look again before trusting the mode.
            if authorization.map(bearer).is_none_or(|key| key.is_err()) {
                return Ok(Caller::open());
            }
            self.reload_after_miss(looked).await;
            if self.is_open() {
                return Ok(Caller::open());
            }
        }
        let (id, secret) = authorization.map(bearer).transpose()?.ok_or(Denied::Missing)?;
        let mut keys = self.snapshot();
        if !keys.contains_key(id) {
            self.reload_after_miss(looked).await;
            keys = self.snapshot();
        }
        let entry = keys.get(id).ok_or(Denied::Unknown)?;
        if !key::matches(secret, &entry.secret_hash) {
            return Err(Denied::Unknown);
        }
        if entry.revoked {
            return Err(Denied::Revoked);
        }
        Ok(Caller {
            tenant: entry.tenant.clone(),
            role: entry.role,
            key_id: Some(id.to_owned()),
        })
    }

    /// Keeps the copy fresh: on every notification, and every [`BACKSTOP`].
    /// The first LISTEN is in place when this returns, so no change made
    /// after startup can slip past; each (re)subscription re-reads the keys,
    /// because changes made while nobody listened sent their NOTIFY to no one.
    pub async fn follow_changes(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        let first = self.subscribe().await;
        tokio::spawn(self.keep_following(first))
    }

    async fn subscribe(&self) -> Option<PgListener> {
        let listener = async {
            // A connection of its own: held for good, it must neither take a
            // slot from the requests' pool nor keep that pool from closing.
            let own = PgPoolOptions::new()
                .max_connections(1)
                .connect_lazy_with(PgConnectOptions::clone(&self.pool.connect_options()));
            let mut listener = PgListener::connect_with(&own).await?;
            listener.listen("compactd_keys").await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match listener.await {
            Ok(listener) => {
                if let Err(err) = self.reload().await {
                    tracing::warn!(%err, "could not re-read the API keys");
                }
                Some(listener)
            }
            Err(err) => {
                tracing::warn!(%err, "cannot listen for key changes; retrying");
                None
            }
        }
    }

    async fn keep_following(self: Arc<Self>, mut first: Option<PgListener>) {
        loop {
            let mut listener = match first.take() {
                Some(listener) => listener,
                None => match self.subscribe().await {
                    Some(listener) => listener,
                    None => {
                        tokio::time::sleep(BACKSTOP).await;
                        continue;
                    }
                },
            };
            loop {
                // A notification, a lost connection (reconnected by recv) or
                // the backstop's timeout: each is a reason to re-read.
                if let Ok(Err(err)) = tokio::time::timeout(BACKSTOP, listener.recv()).await {
                    tracing::debug!(%err, "key notifications interrupted");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                if let Err(err) = self.reload().await {
                    tracing::warn!(%err, "could not re-read the API keys");
                }
            }
        }
    }
}

/// The key in `Authorization: Bearer <key>`.
fn bearer(value: &HeaderValue) -> Result<(&str, &str), Denied> {
    let text = value.to_str().map_err(|_| Denied::Malformed)?;
    let (scheme, token) = text.trim().split_once(' ').ok_or(Denied::Malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Denied::Malformed);
    }
    key::parse(token.trim()).ok_or(Denied::Malformed)
}
