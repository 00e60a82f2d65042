//! The fleet's reads (SPEC §3 `GET /compactions`, `/stats`, `/stats/series`):
//! a tenant's figures across its conversations, each read in one
//! transaction planned for the values it is given, on the standby while it
//! keeps up (`store::FleetReads`).

use chrono::{DateTime, Utc};

use crate::app::{AppResult, Services};
use crate::domain::TenantId;
use crate::domain::series::Series;
use crate::records::{FleetFilter, PreparationStats, Recorded, Stats};
use crate::store::ledger::{self};
use crate::store::series::{self, Point};
use crate::store::stats::{self};
use crate::store::{StoreError, fleet_read, keep};
use crate::summary::keep::{KeepKind, KindFigures};

/// Up to `limit` compaction attempts that pass `filter`, newest first.
pub(crate) async fn compactions(
    services: &Services,
    tenant: &TenantId,
    filter: &FleetFilter,
    limit: u32,
) -> AppResult<Vec<Recorded>> {
    let rows = fleet_read!(services.reads, |tx| ledger::of_fleet(tx, tenant, filter, limit.into())
        .await)
    .await?;
    Ok(rows)
}

/// The tenant's statistics over a span, read from one snapshot.
#[derive(Debug)]
pub(crate) struct Figures {
    pub stats: Stats,
    pub keep: Vec<(KeepKind, KindFigures)>,
    pub preparation: PreparationStats,
}

pub(crate) async fn statistics(
    services: &Services,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> AppResult<Figures> {
    let figures = fleet_read!(services.reads, |tx| {
        Ok::<_, StoreError>(Figures {
            stats: stats::read(tx, tenant, since, until).await?,
            keep: keep::figures_between(tx, tenant, since, until).await?,
            preparation: stats::preparations(tx, tenant, since, until).await?,
        })
    })
    .await?;
    Ok(figures)
}

/// Compactions per bucket of `span`, per trigger.
pub(crate) async fn series(services: &Services, tenant: &TenantId, span: &Series) -> AppResult<Vec<Point>> {
    let points = fleet_read!(services.reads, |tx| series::read(tx, tenant, span).await).await?;
    Ok(points)
}
