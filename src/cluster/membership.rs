//! Membership and leases: a worker is live while its heartbeat key (`SET … PX timeout`)
//! exists; a partition belongs to the worker whose lease key it is, taken with `SET NX` when
//! free, renewed with each heartbeat and deleted by its holder when the partition moves
//! (Lua scripts, so that a worker never renews or deletes another's lease).

use super::{ClusterError, Keys, WorkerStatus};
use redis::aio::ConnectionLike;
use std::time::Duration;

/// KEYS[1] lease, KEYS[2] last holder; ARGV worker, ttl ms. 3: taken now, and no other worker
/// took it since this one did; 2: taken now; 1: renewed; 0: held by another.
const TAKE_OR_RENEW: &str = r"
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  local last = redis.call('GET', KEYS[2])
  redis.call('SET', KEYS[2], ARGV[1])
  if last == ARGV[1] then return 3 end
  return 2
end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[1])
  return 1
end
return 0";

/// KEYS[1] lease; ARGV worker: delete the lease when it is the worker's.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0";

fn redis_err(source: redis::RedisError) -> ClusterError {
    ClusterError::Redis { url: String::new(), source }
}

/// What became of a lease asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    /// Free, now ours.
    Taken,
    /// Free, now ours again: no other worker took it since this one held it last (its lease
    /// lapsed, in a Redis outage, or was given back at a stop), so this worker's state of its
    /// hosts is current.
    Resumed,
    /// Ours already, renewed.
    Renewed,
    /// Another worker's.
    Refused,
}

/// Write this worker's heartbeat (expiring after `ttl`) and its status.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn heartbeat<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    status: &WorkerStatus,
    ttl: Duration,
) -> Result<(), ClusterError> {
    let json = serde_json::to_string(status).map_err(|e| ClusterError::Corrupt(e.to_string()))?;
    let mut pipe = redis::pipe();
    if status.stopped {
        pipe.cmd("DEL").arg(keys.heartbeat(&status.worker)).ignore();
    } else {
        pipe.cmd("SET").arg(keys.heartbeat(&status.worker)).arg(&json).arg("PX").arg(ttl.as_millis() as u64).ignore();
    }
    pipe.cmd("SADD").arg(keys.workers()).arg(&status.worker).ignore();
    pipe.cmd("HSET").arg(keys.status()).arg(&status.worker).arg(&json).ignore();
    pipe.query_async(conn).await.map_err(redis_err)
}

/// Every worker that joined the crawl, with its last status and whether it is live.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn workers<C: ConnectionLike>(conn: &mut C, keys: &Keys) -> Result<Vec<(WorkerStatus, bool)>, ClusterError> {
    let mut ids: Vec<String> = redis::cmd("SMEMBERS").arg(keys.workers()).query_async(conn).await.map_err(redis_err)?;
    ids.sort();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    for id in &ids {
        pipe.cmd("EXISTS").arg(keys.heartbeat(id));
        pipe.cmd("HGET").arg(keys.status()).arg(id);
    }
    let replies: Vec<redis::Value> = pipe.query_async(conn).await.map_err(redis_err)?;
    let mut out = Vec::new();
    for (id, pair) in ids.iter().zip(replies.chunks(2)) {
        let live: bool = redis::from_redis_value(&pair[0]).map_err(redis_err)?;
        let json: Option<String> = redis::from_redis_value(&pair[1]).map_err(redis_err)?;
        let status = json
            .and_then(|j| serde_json::from_str(&j).ok())
            .unwrap_or_else(|| WorkerStatus { worker: id.clone(), ..WorkerStatus::default() });
        out.push((status, live));
    }
    Ok(out)
}

/// The ids of the live workers, sorted.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn live_workers<C: ConnectionLike>(conn: &mut C, keys: &Keys) -> Result<Vec<String>, ClusterError> {
    Ok(workers(conn, keys).await?.into_iter().filter(|(_, live)| *live).map(|(s, _)| s.worker).collect())
}

/// Take or renew the leases of `partitions` for `me` (one pipeline), each for `ttl`.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn take_leases<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    me: &str,
    partitions: &[u32],
    ttl: Duration,
) -> Result<Vec<Lease>, ClusterError> {
    if partitions.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    for &p in partitions {
        pipe.cmd("EVAL")
            .arg(TAKE_OR_RENEW)
            .arg(2)
            .arg(keys.lease(p))
            .arg(keys.holder(p))
            .arg(me)
            .arg(ttl.as_millis() as u64);
    }
    let codes: Vec<i64> = pipe.query_async(conn).await.map_err(redis_err)?;
    Ok(codes
        .into_iter()
        .map(|c| match c {
            3 => Lease::Resumed,
            2 => Lease::Taken,
            1 => Lease::Renewed,
            _ => Lease::Refused,
        })
        .collect())
}

/// Delete `me`'s lease of partition `p` (no-op when it is not `me`'s).
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn release_lease<C: ConnectionLike>(conn: &mut C, keys: &Keys, me: &str, p: u32) -> Result<(), ClusterError> {
    let _: i64 =
        redis::cmd("EVAL").arg(RELEASE).arg(1).arg(keys.lease(p)).arg(me).query_async(conn).await.map_err(redis_err)?;
    Ok(())
}

/// The holder of each partition's lease (`None`: free).
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn lease_holders<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    partitions: u32,
) -> Result<Vec<Option<String>>, ClusterError> {
    let mut cmd = redis::cmd("MGET");
    for p in 0..partitions {
        cmd.arg(keys.lease(p));
    }
    cmd.query_async(conn).await.map_err(redis_err)
}
