//! The connection to the server, with a deadline on every exchange.
//!
//! `statement_timeout` is the server's: a server that is stopped (SIGSTOP,
//! a frozen VM, a pooler whose server hung) never enforces it, and a
//! blocking client would wait for its answer forever — the one failure a
//! wrapper must never have, since the wrapped command's output waits
//! behind the archive. So the client is the asynchronous one, driven on a
//! runtime of its own, and every exchange (the connection with TLS and
//! the start-up, each statement, each chunk read) is raced against a
//! timer. An exchange that loses leaves the connection in an unknown
//! state: it is given up, and every later exchange fails at once, so a
//! hung server costs one deadline, not one per statement.
//!
//! The runtime runs on the calling thread only while an exchange is
//! awaited (current-thread): between exchanges nothing runs, as with a
//! blocking client.

use std::future::Future;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::types::{ToSql, Type};
use postgres::{Row, Statement, ToStatement};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio_postgres::NoTls;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Why an exchange with the server failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server (or the connection) answered with an error.
    Server(postgres::Error),
    /// No answer within the deadline: the connection is given up.
    Late(Duration),
    /// An earlier exchange was late: the connection was given up then.
    GivenUp(Duration),
    /// The runtime could not be made (no threads, no timers).
    Local(String),
}

impl Failure {
    /// The server's error code, when the server answered.
    pub(crate) fn code(&self) -> Option<&SqlState> {
        match self {
            Failure::Server(e) => e.code(),
            _ => None,
        }
    }

    /// The server's own error, when it answered with one.
    pub(crate) fn as_db_error(&self) -> Option<&postgres::error::DbError> {
        match self {
            Failure::Server(e) => e.as_db_error(),
            _ => None,
        }
    }
}

impl From<postgres::Error> for Failure {
    fn from(e: postgres::Error) -> Failure {
        Failure::Server(e)
    }
}

/// A connection whose every exchange has a deadline.
pub(crate) struct Client {
    // Dropped first: the connection's task then says goodbye to the
    // server (`Link::drop`).
    inner: tokio_postgres::Client,
    link: Link,
}

/// The runtime that drives the connection, and whether it was given up.
struct Link {
    runtime: Runtime,
    /// The connection's task: it ends once the client is gone, after
    /// sending the server its goodbye (Terminate).
    connection: Option<JoinHandle<()>>,
    deadline: Duration,
    /// Set when an exchange was late: the connection is not used again.
    given_up: bool,
}

impl Link {
    /// Awaits `work` for at most the deadline; a late answer gives the
    /// connection up.
    fn within<T>(
        &mut self,
        work: impl Future<Output = Result<T, postgres::Error>>,
    ) -> Result<T, Failure> {
        if self.given_up {
            return Err(Failure::GivenUp(self.deadline));
        }
        let deadline = self.deadline;
        match self
            .runtime
            .block_on(async { tokio::time::timeout(deadline, work).await })
        {
            Ok(answer) => answer.map_err(Failure::Server),
            Err(_) => {
                self.given_up = true;
                Err(Failure::Late(deadline))
            }
        }
    }
}

impl Drop for Link {
    /// Lets the connection send its goodbye (a server that is alive then
    /// ends the backend at once instead of logging a lost client), within
    /// the deadline; a connection given up is simply dropped.
    fn drop(&mut self) {
        if let (false, Some(task)) = (self.given_up, self.connection.take()) {
            let deadline = self.deadline;
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(deadline, task).await });
        }
    }
}

impl Client {
    /// Connects (TCP, TLS, the start-up exchange) within `connect_deadline`;
    /// every later exchange gets `deadline`.
    pub(crate) fn connect(
        config: &tokio_postgres::Config,
        tls: Option<MakeRustlsConnect>,
        connect_deadline: Duration,
        deadline: Duration,
    ) -> Result<Client, Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::Local(format!("cannot start the client's runtime: {e}")))?;
        let mut link = Link {
            runtime,
            connection: None,
            deadline: connect_deadline,
            given_up: false,
        };
        // The connection's task reads and writes the socket; it runs
        // whenever an exchange is awaited, and ends with the runtime.
        let work = async {
            match tls {
                Some(tls) => {
                    let (client, connection) = config.connect(tls).await?;
                    Ok((client, tokio::spawn(async { drop(connection.await) })))
                }
                None => {
                    let (client, connection) = config.connect(NoTls).await?;
                    Ok((client, tokio::spawn(async { drop(connection.await) })))
                }
            }
        };
        let (inner, connection) = link.within(work)?;
        link.connection = Some(connection);
        link.deadline = deadline;
        Ok(Client { inner, link })
    }

    pub(crate) fn batch_execute(&mut self, sql: &str) -> Result<(), Failure> {
        let work = self.inner.batch_execute(sql);
        self.link.within(work)
    }

    pub(crate) fn query<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Failure> {
        let work = self.inner.query(statement, params);
        self.link.within(work)
    }

    pub(crate) fn query_one<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, Failure> {
        let work = self.inner.query_one(statement, params);
        self.link.within(work)
    }

    pub(crate) fn query_opt<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, Failure> {
        let work = self.inner.query_opt(statement, params);
        self.link.within(work)
    }

    pub(crate) fn query_typed_one(
        &mut self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Row, Failure> {
        let work = self.inner.query_typed_one(sql, params);
        self.link.within(work)
    }

    pub(crate) fn execute<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, Failure> {
        let work = self.inner.execute(statement, params);
        self.link.within(work)
    }

    pub(crate) fn execute_typed(
        &mut self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<u64, Failure> {
        let work = self.inner.execute_typed(sql, params);
        self.link.within(work)
    }

    pub(crate) fn prepare(&mut self, sql: &str) -> Result<Statement, Failure> {
        let work = self.inner.prepare(sql);
        self.link.within(work)
    }
}
