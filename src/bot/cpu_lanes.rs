//! One CPU per `--jobs` slot, for engines that hand slots to long-running
//! processes (forty's multiplexed bots).
//!
//! Why: the referee wakes the process it writes to, and Linux places a
//! woken task on the waker's CPU. An engine that writes several batches in
//! a row therefore queues several bots on its own CPU while another CPU
//! goes idle, and an idle CPU that idles often does not pull them over
//! (new-idle balancing is skipped when idle periods are short). With 20
//! Python bots on 2 cores a run spent 22 % of its CPU time idle. Pinning
//! the process that takes slot k to CPU k before its batch is written puts
//! each batch where a slot just became free: the same run idled 12 %
//! (numbers in BENCHMARKS.md).
//!
//! It changes speed only, never results, and it is best effort: a failed
//! pin (no permission, a process already gone, a CPU taken away by a
//! cpuset) is ignored. Only the thread whose id is the process id is
//! pinned, so a bot's helper threads keep every CPU.

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;

/// The slots and the CPU each one runs on.
#[derive(Debug, Clone)]
pub struct CpuLanes {
    /// CPU of each lane; empty when pinning would not help (fewer than two
    /// usable CPUs).
    cpus: Vec<usize>,
    /// Which lanes are taken.
    busy: Vec<bool>,
}

impl CpuLanes {
    /// `lanes` slots spread over the CPUs this process may run on.
    pub fn new(lanes: usize) -> CpuLanes {
        CpuLanes::over(lanes, &allowed_cpus())
    }

    /// `lanes` slots spread over `cpus`, in turn.
    pub fn over(lanes: usize, cpus: &[usize]) -> CpuLanes {
        let lanes = lanes.max(1);
        let cpus = if cpus.len() < 2 {
            Vec::new()
        } else {
            (0..lanes).map(|lane| cpus[lane % cpus.len()]).collect()
        };
        CpuLanes {
            cpus,
            busy: vec![false; lanes],
        }
    }

    /// Slots in all.
    pub fn len(&self) -> usize {
        self.busy.len()
    }

    /// Never true: there is at least one slot.
    pub fn is_empty(&self) -> bool {
        self.busy.is_empty()
    }

    /// Slots taken.
    pub fn taken(&self) -> usize {
        self.busy.iter().filter(|b| **b).count()
    }

    /// Takes the lowest free lane.
    pub fn acquire(&mut self) -> Option<usize> {
        let lane = self.busy.iter().position(|b| !*b)?;
        self.busy[lane] = true;
        Some(lane)
    }

    /// Gives `lane` back.
    pub fn release(&mut self, lane: usize) {
        if let Some(b) = self.busy.get_mut(lane) {
            *b = false;
        }
    }

    /// The CPU of `lane`, or None when lanes are not pinned.
    pub fn cpu(&self, lane: usize) -> Option<usize> {
        self.cpus.get(lane).copied()
    }
}

/// The CPUs this process may run on, in increasing order.
pub fn allowed_cpus() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

/// Pins thread `tid` (a process's main thread when it is the pid) to
/// `cpu`. Best effort: false if the kernel refused.
pub fn pin(tid: u32, cpu: usize) -> bool {
    let Ok(tid) = i32::try_from(tid) else {
        return false;
    };
    let mut set = CpuSet::new();
    if set.set(cpu).is_err() {
        return false;
    }
    sched_setaffinity(Pid::from_raw(tid), &set).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_cycle_over_the_cpus() {
        let lanes = CpuLanes::over(5, &[2, 5, 7]);
        let cpus: Vec<_> = (0..5).map(|l| lanes.cpu(l)).collect();
        assert_eq!(cpus, [Some(2), Some(5), Some(7), Some(2), Some(5)]);
    }

    #[test]
    fn one_cpu_pins_nothing() {
        let lanes = CpuLanes::over(2, &[3]);
        assert_eq!(lanes.cpu(0), None);
        assert_eq!(lanes.len(), 2);
    }

    #[test]
    fn acquire_takes_the_lowest_free_lane_until_none_is_left() {
        let mut lanes = CpuLanes::over(3, &[0, 1]);
        assert_eq!(lanes.acquire(), Some(0));
        assert_eq!(lanes.acquire(), Some(1));
        assert_eq!(lanes.acquire(), Some(2));
        assert_eq!(lanes.acquire(), None);
        assert_eq!(lanes.taken(), 3);
        lanes.release(1);
        assert_eq!(lanes.taken(), 2);
        assert_eq!(lanes.acquire(), Some(1));
    }

    #[test]
    fn pin_moves_a_thread_and_reports_refusal() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        let last = cpus[cpus.len() - 1];
        // A thread of our own, pinned through its id as a process would be.
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            let _ = tx.send(nix::unistd::gettid().as_raw());
            let _ = done_rx.recv();
            sched_getaffinity(Pid::from_raw(0)).map(|set| {
                (0..CpuSet::count())
                    .filter(|&c| set.is_set(c).unwrap_or(false))
                    .collect::<Vec<_>>()
            })
        });
        let tid = rx.recv().expect("the thread reports its id");
        assert!(pin(u32::try_from(tid).expect("positive tid"), last));
        done_tx.send(()).expect("the thread waits");
        let seen = handle.join().expect("no panic").expect("affinity read");
        assert_eq!(seen, vec![last]);
        // A CPU beyond any set, and a thread that does not exist.
        assert!(!pin(
            u32::try_from(tid).expect("positive tid"),
            CpuSet::count()
        ));
        assert!(!pin(u32::MAX, last));
    }
}
