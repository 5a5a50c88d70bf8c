//! A bounded set of running tasks: the one place a runner's concurrency
//! limit lives. Runners decide what to start and in which order; the pool
//! says whether there is room, runs the tasks and hands back results as
//! they finish. A task that panicked is the machine's error, not a game's.

use crate::error::{Error, Result};
use std::future::Future;
use tokio::task::JoinSet;

/// At most `limit` tasks at once.
pub struct Pool<T> {
    tasks: JoinSet<T>,
    limit: usize,
    most: usize,
}

impl<T: Send + 'static> Pool<T> {
    /// A pool of at most `limit` tasks (at least 1).
    pub fn new(limit: usize) -> Pool<T> {
        Pool {
            tasks: JoinSet::new(),
            limit: limit.max(1),
            most: 0,
        }
    }

    /// Whether another task may start now.
    pub fn has_room(&self) -> bool {
        self.tasks.len() < self.limit
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The most tasks that ever ran at once.
    pub fn most_at_once(&self) -> usize {
        self.most
    }

    /// Starts a task. The caller checks [`Pool::has_room`] first; a task
    /// started without room still runs (the limit is the caller's promise).
    pub fn spawn(&mut self, task: impl Future<Output = T> + Send + 'static) {
        self.tasks.spawn(task);
        self.most = self.most.max(self.tasks.len());
    }

    /// The next task to finish; `None` when none is running.
    pub async fn join_next(&mut self) -> Option<Result<T>> {
        let joined = self.tasks.join_next().await?;
        Some(joined.map_err(|e| Error::machine(format!("a game task failed: {e}"))))
    }

    /// Waits for every running task, dropping their results.
    pub async fn drain(&mut self) {
        while self.tasks.join_next().await.is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_runs_more_than_its_limit() {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut pool = Pool::new(3);
        let mut started = 0;
        let mut finished = 0;
        while finished < 20 {
            while started < 20 && pool.has_room() {
                let (running, most) = (Arc::clone(&running), Arc::clone(&most));
                pool.spawn(async move {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    started
                });
                started += 1;
            }
            assert!(pool.join_next().await.unwrap().is_ok());
            finished += 1;
        }
        assert!(pool.join_next().await.is_none());
        assert!(most.load(Ordering::SeqCst) <= 3);
        assert_eq!(pool.most_at_once(), 3);
    }

    #[tokio::test]
    async fn a_panicked_task_is_an_error() {
        let mut pool: Pool<()> = Pool::new(1);
        pool.spawn(async { panic!("boom") });
        assert!(pool.join_next().await.unwrap().is_err());
    }
}
