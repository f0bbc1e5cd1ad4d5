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
    runtime: Runtime,
    inner: tokio_postgres::Client,
    deadline: Duration,
    /// Set when an exchange was late: the connection is not used again.
    given_up: bool,
}

/// Awaits `work` on `runtime` for at most `deadline`; a late answer
/// gives the connection up (`given_up`).
fn within<T>(
    runtime: &Runtime,
    deadline: Duration,
    given_up: &mut bool,
    work: impl Future<Output = Result<T, postgres::Error>>,
) -> Result<T, Failure> {
    if *given_up {
        return Err(Failure::GivenUp(deadline));
    }
    match runtime.block_on(async { tokio::time::timeout(deadline, work).await }) {
        Ok(answer) => answer.map_err(Failure::Server),
        Err(_) => {
            *given_up = true;
            Err(Failure::Late(deadline))
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
        let mut given_up = false;
        // The connection's task reads and writes the socket; it runs
        // whenever an exchange is awaited, and ends with the runtime.
        let work = async {
            match tls {
                Some(tls) => {
                    let (client, connection) = config.connect(tls).await?;
                    tokio::spawn(connection);
                    Ok(client)
                }
                None => {
                    let (client, connection) = config.connect(NoTls).await?;
                    tokio::spawn(connection);
                    Ok(client)
                }
            }
        };
        let inner = within(&runtime, connect_deadline, &mut given_up, work)?;
        Ok(Client {
            runtime,
            inner,
            deadline,
            given_up: false,
        })
    }

    pub(crate) fn batch_execute(&mut self, sql: &str) -> Result<(), Failure> {
        let work = self.inner.batch_execute(sql);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn query<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Failure> {
        let work = self.inner.query(statement, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn query_one<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, Failure> {
        let work = self.inner.query_one(statement, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn query_opt<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, Failure> {
        let work = self.inner.query_opt(statement, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn query_typed_one(
        &mut self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Row, Failure> {
        let work = self.inner.query_typed_one(sql, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn execute<T: ?Sized + ToStatement>(
        &mut self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, Failure> {
        let work = self.inner.execute(statement, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn execute_typed(
        &mut self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<u64, Failure> {
        let work = self.inner.execute_typed(sql, params);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }

    pub(crate) fn prepare(&mut self, sql: &str) -> Result<Statement, Failure> {
        let work = self.inner.prepare(sql);
        within(&self.runtime, self.deadline, &mut self.given_up, work)
    }
}
