//! The partition streams: publishing URLs once per crawl ([`publish`]: a Lua script that adds
//! an entry only when `SADD` inserts the URL's identity), reading them as the partition's
//! owner ([`read`], `XREADGROUP` on the group [`GROUP`]), taking over the entries a former
//! owner left pending ([`claim_all`], `XAUTOCLAIM`) and acknowledging them once their outcome is
//! committed ([`ack`]: `XACK` then `XDEL`, so the stream holds only URLs not yet done).

use super::{ClusterError, Delivered, Keys, RemoteUrl, StreamRef, GROUP};
use redis::aio::ConnectionLike;
use std::collections::BTreeMap;

/// KEYS[1] seen set, KEYS[2] stream; ARGV identity, payload, identity, payload, ...
const PUBLISH: &str = r"
local added = 0
for i = 1, #ARGV, 2 do
  if redis.call('SADD', KEYS[1], ARGV[i]) == 1 then
    redis.call('XADD', KEYS[2], '*', 'u', ARGV[i + 1])
    added = added + 1
  end
end
return added";

/// Entries read or claimed per call.
pub const READ_COUNT: usize = 256;

fn corrupt(e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Corrupt(e.to_string())
}

/// Publish `urls` to the streams of their hosts' partitions (one script call per partition,
/// all in one pipeline: one round trip). Returns the entries added (URLs new to the crawl).
///
/// # Errors
/// [`ClusterError::Redis`] (the URL of the error is left empty: the caller knows it).
pub async fn publish<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    partitions: u32,
    urls: &[(u128, RemoteUrl)],
) -> Result<u64, ClusterError> {
    if urls.is_empty() {
        return Ok(0);
    }
    let mut by_partition: BTreeMap<u32, Vec<&(u128, RemoteUrl)>> = BTreeMap::new();
    for item in urls {
        by_partition.entry(super::partition_of(&item.1.host, partitions)).or_default().push(item);
    }
    let mut pipe = redis::pipe();
    for (p, items) in &by_partition {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(PUBLISH).arg(2).arg(keys.seen(*p)).arg(keys.stream(*p));
        for (identity, url) in items {
            cmd.arg(&identity.to_be_bytes()[..]).arg(serde_json::to_string(url).map_err(corrupt)?);
        }
        pipe.add_command(cmd);
    }
    let added: Vec<u64> = pipe.query_async(conn).await.map_err(redis_err)?;
    Ok(added.iter().sum())
}

fn redis_err(source: redis::RedisError) -> ClusterError {
    ClusterError::Redis { url: String::new(), source }
}

/// Create the consumer group of partition `p`'s stream (and the stream) when missing.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn ensure_group<C: ConnectionLike>(conn: &mut C, keys: &Keys, p: u32) -> Result<(), ClusterError> {
    let created: redis::RedisResult<()> = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(keys.stream(p))
        .arg(GROUP)
        .arg("0")
        .arg("MKSTREAM")
        .query_async(conn)
        .await;
    match created {
        Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
        other => other.map_err(redis_err),
    }
}

fn delivered(p: u32, entries: Vec<redis::streams::StreamId>, out: &mut Vec<Delivered>) -> Result<(), ClusterError> {
    for entry in entries {
        let payload: String = entry.get("u").ok_or_else(|| corrupt(format!("entry {} has no field u", entry.id)))?;
        let url: RemoteUrl = serde_json::from_str(&payload).map_err(corrupt)?;
        out.push(url.delivered(&StreamRef { partition: p, id: entry.id }));
    }
    Ok(())
}

/// New entries of the partitions `held` for consumer `me`, waiting up to `block_ms` when there
/// are none (use a connection of its own: the wait holds it).
///
/// # Errors
/// [`ClusterError::Redis`], [`ClusterError::Corrupt`].
pub async fn read<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    me: &str,
    held: &[u32],
    block_ms: u64,
) -> Result<Vec<Delivered>, ClusterError> {
    if held.is_empty() {
        return Ok(Vec::new());
    }
    let mut cmd = redis::cmd("XREADGROUP");
    cmd.arg("GROUP").arg(GROUP).arg(me).arg("COUNT").arg(READ_COUNT).arg("BLOCK").arg(block_ms).arg("STREAMS");
    for &p in held {
        cmd.arg(keys.stream(p));
    }
    for _ in held {
        cmd.arg(">");
    }
    let reply: Option<redis::streams::StreamReadReply> = cmd.query_async(conn).await.map_err(redis_err)?;
    let mut out = Vec::new();
    for stream in reply.map(|r| r.keys).unwrap_or_default() {
        let p = held.iter().copied().find(|&p| keys.stream(p) == stream.key).ok_or_else(|| corrupt(&stream.key))?;
        delivered(p, stream.ids, &mut out)?;
    }
    Ok(out)
}

/// Take every entry of partition `p` that was delivered but not acknowledged (to any consumer:
/// a former owner, or this worker before a restart) for consumer `me`.
///
/// # Errors
/// [`ClusterError::Redis`], [`ClusterError::Corrupt`].
pub async fn claim_all<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    me: &str,
    p: u32,
) -> Result<Vec<Delivered>, ClusterError> {
    let mut out = Vec::new();
    let mut start = "0-0".to_string();
    loop {
        let reply: redis::streams::StreamAutoClaimReply = redis::cmd("XAUTOCLAIM")
            .arg(keys.stream(p))
            .arg(GROUP)
            .arg(me)
            .arg(0)
            .arg(&start)
            .arg("COUNT")
            .arg(READ_COUNT)
            .query_async(conn)
            .await
            .map_err(redis_err)?;
        delivered(p, reply.claimed, &mut out)?;
        if reply.next_stream_id == "0-0" {
            return Ok(out);
        }
        start = reply.next_stream_id;
    }
}

/// Acknowledge and delete `done` (one pipeline).
///
/// # Errors
/// Redis's.
pub async fn ack<C: ConnectionLike>(conn: &mut C, keys: &Keys, done: &[StreamRef]) -> redis::RedisResult<()> {
    let mut by_partition: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for r in done {
        by_partition.entry(r.partition).or_default().push(&r.id);
    }
    let mut pipe = redis::pipe();
    for (p, ids) in by_partition {
        pipe.cmd("XACK").arg(keys.stream(p)).arg(GROUP).arg(&ids).ignore();
        pipe.cmd("XDEL").arg(keys.stream(p)).arg(&ids).ignore();
    }
    pipe.query_async(conn).await
}

/// Entries in every partition stream (queued or delivered, not yet acknowledged).
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn queued_total<C: ConnectionLike>(conn: &mut C, keys: &Keys, partitions: u32) -> Result<u64, ClusterError> {
    let mut pipe = redis::pipe();
    for p in 0..partitions {
        pipe.cmd("XLEN").arg(keys.stream(p));
    }
    let lens: Vec<u64> = pipe.query_async(conn).await.map_err(redis_err)?;
    Ok(lens.iter().sum())
}

/// Queue the seeds once per crawl: the first worker to set the `seeds` key (or the same
/// worker again, when it stopped before it finished) publishes them and sets `seeds.loaded`.
/// Returns the entries added, or `None` when another worker loads (or loaded) them.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn load_seeds<C: ConnectionLike>(
    conn: &mut C,
    keys: &Keys,
    partitions: u32,
    me: &str,
    seeds: &[(u128, RemoteUrl)],
) -> Result<Option<u64>, ClusterError> {
    let claimed: bool = redis::cmd("SET")
        .arg(keys.seeds())
        .arg(me)
        .arg("NX")
        .query_async::<Option<String>>(conn)
        .await
        .map_err(redis_err)?
        .is_some();
    let loader: Option<String> = redis::cmd("GET").arg(keys.seeds()).query_async(conn).await.map_err(redis_err)?;
    let loaded: Option<u64> = redis::cmd("GET").arg(keys.seeds_loaded()).query_async(conn).await.map_err(redis_err)?;
    if !(claimed || (loader.as_deref() == Some(me) && loaded.is_none())) {
        return Ok(None);
    }
    let mut added = 0;
    for chunk in seeds.chunks(1024) {
        added += publish(conn, keys, partitions, chunk).await?;
    }
    let _: () =
        redis::cmd("SET").arg(keys.seeds_loaded()).arg(seeds.len()).query_async(conn).await.map_err(redis_err)?;
    Ok(Some(added))
}
