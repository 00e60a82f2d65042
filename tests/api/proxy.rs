//! A TCP proxy to the test Postgres that breaks connections on cue, as a
//! network path, a failover or a dying host does: silently, with no error
//! from the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::postgres::PgConnectOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

use crate::helpers::admin_options;

/// What happens to a connection that sends the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// It is cut when [`FaultyProxy::cut`] is called.
    CutWhenTold,
    /// Once, for the first one: the statement holding the marker runs on
    /// the database, its answer is held back ([`FaultyProxy::swallowing`]
    /// says when), and the connection is cut when told.
    SwallowAnswer,
}

pub struct FaultyProxy {
    /// Reaches the test Postgres through the proxy.
    pub options: PgConnectOptions,
    /// While `false`, new connections are accepted but wait.
    pub open: watch::Sender<bool>,
    /// Notified when an answer is being held back.
    pub swallowing: Arc<Notify>,
    cut: Arc<Notify>,
}

impl FaultyProxy {
    pub async fn start(marker: &'static [u8], fault: Fault) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (open, opened) = watch::channel(true);
        let (swallowing, cut) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
        let connection = Connection {
            marker,
            fault,
            armed: Arc::new(AtomicBool::new(true)),
            swallowing: swallowing.clone(),
            cut: cut.clone(),
        };
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (connection, mut opened) = (connection.clone(), opened.clone());
                tokio::spawn(async move {
                    let _ = opened.wait_for(|open| *open).await;
                    connection.relay(client).await;
                });
            }
        });
        Self {
            options: admin_options().host("127.0.0.1").port(port),
            open,
            swallowing,
            cut,
        }
    }

    /// Cuts every connection that has sent the marker.
    pub fn cut(&self) {
        self.cut.notify_waiters();
    }
}

#[derive(Clone)]
struct Connection {
    marker: &'static [u8],
    fault: Fault,
    /// The swallowing has not happened yet.
    armed: Arc<AtomicBool>,
    swallowing: Arc<Notify>,
    cut: Arc<Notify>,
}

impl Connection {
    async fn relay(self, client: TcpStream) {
        let server = admin_options();
        let database = TcpStream::connect(format!("{}:{}", server.get_host(), server.get_port()))
            .await
            .unwrap();
        let (mut from_client, mut to_client) = client.into_split();
        let (mut from_database, mut to_database) = database.into_split();
        let (marked, muted) = (Arc::new(Notify::new()), Arc::new(AtomicBool::new(false)));
        let (mark, mute, this) = (marked.clone(), muted.clone(), self.clone());
        let upward = async move {
            let (mut seen, mut prepared) = (Vec::new(), false);
            let mut buffer = [0u8; 16 * 1024];
            while let Ok(n @ 1..) = from_client.read(&mut buffer).await {
                // A statement is prepared first (its text goes up, its
                // description comes down), then bound and run: a Bind message.
                if prepared && buffer[0] == b'B' {
                    prepared = false;
                    mute.store(true, Ordering::SeqCst);
                    this.swallowing.notify_one();
                }
                seen.extend_from_slice(&buffer[..n]);
                if seen.windows(this.marker.len()).any(|window| window == this.marker) {
                    mark.notify_one();
                    prepared |= this.fault == Fault::SwallowAnswer && this.armed.swap(false, Ordering::SeqCst);
                }
                if to_database.write_all(&buffer[..n]).await.is_err() {
                    return;
                }
            }
        };
        let downward = async move {
            let mut buffer = [0u8; 16 * 1024];
            while let Ok(n @ 1..) = from_database.read(&mut buffer).await {
                if muted.load(Ordering::SeqCst) {
                    // Held back until the connection is cut.
                    std::future::pending::<()>().await;
                }
                if to_client.write_all(&buffer[..n]).await.is_err() {
                    return;
                }
            }
        };
        let cut_when_marked = async move {
            marked.notified().await;
            self.cut.notified().await;
        };
        // Whichever ends first drops both sockets' halves, closing them.
        tokio::select! {
            () = upward => {}
            () = downward => {}
            () = cut_when_marked => {}
        }
    }
}
