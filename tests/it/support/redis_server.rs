//! A throwaway `redis-server` (Debian's package) on a free 127.0.0.1 port, for the cluster
//! tests; stopped when dropped.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server.
pub struct RedisServer {
    /// `redis://127.0.0.1:PORT/`.
    pub url: String,
    child: Child,
}

impl RedisServer {
    /// Start one; the test fails when `redis-server` is not installed ([`super::missing_tool`]).
    pub fn start(test: &str) -> Option<RedisServer> {
        let Ok(path) = which("redis-server") else {
            super::missing_tool(test, "redis-server", "apt-get install redis-server");
        };
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(path)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        let url = format!("redis://127.0.0.1:{port}/");
        let client = redis::Client::open(url.as_str()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(mut conn) = client.get_connection() {
                if redis::cmd("PING").query::<String>(&mut conn).is_ok() {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "redis-server did not answer on port {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(RedisServer { url, child })
    }

    /// Stop answering (SIGSTOP: connections stay open, commands time out), as an overloaded or
    /// partitioned server does; [`RedisServer::resume`] ends it.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Answer again after [`RedisServer::pause`].
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, sig: &str) {
        let status = Command::new("kill").arg(sig).arg(self.child.id().to_string()).status().expect("kill");
        assert!(status.success(), "kill {sig} redis-server");
    }

    /// A blocking connection.
    pub fn conn(&self) -> redis::Connection {
        redis::Client::open(self.url.as_str()).unwrap().get_connection().unwrap()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // A paused server is killed too (SIGKILL ends a stopped process).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).ok_or(())
}
