//! The keys, in memory: looked up on every request without a database round
//! trip, refreshed whenever the table changes (its trigger NOTIFYs) and, as a
//! backstop, every little while.
//!
//! The copy is trusted only while the LISTEN that keeps it fresh is live
//! ("synced"): then an unknown id is refused from memory, in the time a wrong
//! secret takes, so a flood of made-up ids costs no database read and tells
//! nobody which ids exist. (In open mode, while the copy holds no key, a
//! request presenting one re-reads the keys first, requests at the same
//! moment sharing one read: the first key made works from its first use.) From the moment the listening connection is lost
//! until it listens again and has re-read the keys, every request re-reads
//! them first (requests at the same moment share one read), so a revocation
//! made meanwhile is never missed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::http::HeaderValue;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::{Mutex, watch};
use tokio::time::Instant;

use super::{Caller, key};
use crate::domain::{KeyRole, TenantId};
use crate::store::{StoreResult, keys};

/// How often the keys are re-read even without a notification.
const BACKSTOP: Duration = Duration::from_secs(30);
/// How long to wait before listening again after a failed attempt.
const RELISTEN_AFTER: Duration = Duration::from_secs(1);

/// A hash no secret has, compared against for an unknown id so that it is
/// refused in the time a wrong secret takes.
const NO_SUCH_KEY: [u8; 32] = [0; 32];

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
    /// The keys cannot be read and the copy may be stale: a 503, not a 401.
    #[error("API keys cannot be checked while the database is unreachable; retry shortly")]
    Unverifiable,
}

struct Entry {
    tenant: TenantId,
    role: KeyRole,
    secret_hash: Vec<u8>,
    revoked: bool,
}

pub struct KeyRegistry {
    pool: PgPool,
    /// Where LISTEN goes: a session of its own, past any transaction pooler.
    listen_on: PgConnectOptions,
    keys: RwLock<Arc<HashMap<String, Entry>>>,
    last_reload: Mutex<Instant>,
    /// Counts re-reads, so a watcher can tell when a change has been taken in.
    generation: watch::Sender<u64>,
    /// The LISTEN is live and the keys were read after it began.
    synced: AtomicBool,
}

impl KeyRegistry {
    /// The keys, read from `pool`; changes are listened for on `direct`
    /// (Postgres itself, when the pool goes through a pooler), else on the
    /// pool's database.
    pub(crate) async fn load(pool: PgPool, direct: Option<PgConnectOptions>) -> StoreResult<Arc<Self>> {
        let listen_on = direct.unwrap_or_else(|| PgConnectOptions::clone(&pool.connect_options()));
        let registry = Arc::new(Self {
            pool,
            listen_on,
            keys: RwLock::new(Arc::default()),
            last_reload: Mutex::new(Instant::now()),
            generation: watch::Sender::new(0),
            synced: AtomicBool::new(false),
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
    pub(crate) fn is_open(&self) -> bool {
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

    /// Whether the copy holds the key with this id (revoked or not).
    pub fn knows(&self, id: &str) -> bool {
        self.snapshot().contains_key(id)
    }

    /// Whether the copy is being kept fresh by a live LISTEN.
    pub(crate) fn is_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }

    async fn read_all(&self) -> StoreResult<HashMap<String, Entry>> {
        let mut conn = self.pool.acquire().await?;
        let stored = keys::all(&mut conn).await?;
        let fresh: HashMap<String, Entry> = stored
            .into_iter()
            .filter_map(|key| {
                let entry = Entry {
                    tenant: TenantId::parse("tenant", &key.tenant).ok()?,
                    role: KeyRole::parse(&key.role)?,
                    secret_hash: key.secret_hash,
                    revoked: key.revoked_at.is_some(),
                };
                Some((key.id, entry))
            })
            .collect();
        Ok(fresh)
    }

    /// Re-reads the keys unless a re-read finished since `looked` (requests
    /// at the same moment share one); answers whether the copy is now at
    /// least that fresh.
    async fn reload_unless_fresher(&self, looked: Instant) -> bool {
        let mut last = self.last_reload.lock().await;
        if *last > looked {
            return true;
        }
        match self.read_all().await {
            Ok(fresh) => {
                self.replace(fresh);
                *last = Instant::now();
                true
            }
            Err(err) => {
                tracing::debug!(%err, "could not re-read the API keys");
                false
            }
        }
    }

    /// Who sends `authorization`.
    pub(crate) async fn authenticate(&self, authorization: Option<&HeaderValue>) -> Result<Caller, Denied> {
        let looked = Instant::now();
        // Changes may have gone unheard: read them before trusting the copy.
        if !self.is_synced() && !self.reload_unless_fresher(looked).await {
            return Err(Denied::Unverifiable);
        }
        // A caller with a key where the copy holds none may hold the first
        // key made, its NOTIFY still on the way: read the keys first, so a
        // new key works (and open mode ends) from its first use.
        let presents_a_key = authorization.is_some_and(|value| bearer(value).is_ok());
        if self.is_open() && presents_a_key && !self.reload_unless_fresher(looked).await {
            return Err(Denied::Unverifiable);
        }
        if self.is_open() {
            return Ok(Caller::open());
        }
        let (id, secret) = authorization.map(bearer).transpose()?.ok_or(Denied::Missing)?;
        let keys = self.snapshot();
        let entry = keys.get(id);
        // The same work for an unknown id as for a wrong secret.
        let stored_hash = entry.map_or(NO_SUCH_KEY.as_slice(), |entry| entry.secret_hash.as_slice());
        let matched = key::matches(secret, stored_hash);
        let entry = entry.filter(|_| matched).ok_or(Denied::Unknown)?;
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
    pub(crate) async fn follow_changes(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        let first = self.subscribe().await;
        tokio::spawn(self.keep_following(first))
    }

    async fn subscribe(&self) -> Option<PgListener> {
        let listener = async {
            // A connection of its own: held for good, it must neither take a
            // slot from the requests' pool nor keep that pool from closing.
            let own = PgPoolOptions::new()
                .max_connections(1)
                .connect_lazy_with(self.listen_on.clone());
            let mut listener = PgListener::connect_with(&own).await?;
            listener.listen("compactd_keys").await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match listener.await {
            Ok(listener) => match self.reload().await {
                Ok(()) => {
                    self.synced.store(true, Ordering::Release);
                    Some(listener)
                }
                Err(err) => {
                    tracing::warn!(%err, "could not re-read the API keys; listening again");
                    None
                }
            },
            Err(err) => {
                tracing::warn!(%err, "cannot listen for key changes; retrying");
                None
            }
        }
    }

    async fn keep_following(self: Arc<Self>, mut first: Option<PgListener>) {
        loop {
            let listener = match first.take() {
                Some(listener) => Some(listener),
                None => self.subscribe().await,
            };
            let Some(mut listener) = listener else {
                tokio::time::sleep(RELISTEN_AFTER).await;
                continue;
            };
            loop {
                match tokio::time::timeout(BACKSTOP, listener.try_recv()).await {
                    // A change, or the backstop: re-read.
                    Ok(Ok(Some(_))) | Err(_) => {
                        if let Err(err) = self.reload().await {
                            tracing::warn!(%err, "could not re-read the API keys");
                        }
                    }
                    // The connection is gone, and with it any NOTIFY sent
                    // meanwhile: distrust the copy until listening again.
                    Ok(Ok(None) | Err(_)) => {
                        self.synced.store(false, Ordering::Release);
                        tracing::warn!("lost the key-change listener; re-reading keys per request until it is back");
                        break;
                    }
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
