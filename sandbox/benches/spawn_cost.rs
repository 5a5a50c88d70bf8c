//! What the confinement costs per process start: `/bin/true` started
//! confined (the meta-ttt policy: Landlock, seccomp, capabilities, cgroups,
//! rlimits) against started with the minimal confinement, interleaved in
//! the same run. CPU time (the referee's threads and the children's, from
//! getrusage) is less noisy on a shared machine than wall time; both are
//! printed.
//!
//! Run: `cargo bench -p referee-sandbox --bench spawn_cost`

use referee_sandbox::spawn::Command;
use referee_sandbox::{Confinement, Policy, Setup, Support};
use std::time::{Duration, Instant};

const ROUNDS: usize = 7;
const STARTS: usize = 300;

fn cpu() -> Duration {
    let total = |who| {
        // SAFETY: getrusage writes one rusage into a valid local.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        Duration::from_micros(us(u.ru_utime) + us(u.ru_stime))
    };
    total(libc::RUSAGE_SELF) + total(libc::RUSAGE_CHILDREN)
}

/// Wall and CPU time per start.
fn starts(c: &Confinement) -> (f64, f64) {
    let (wall, cpu0) = (Instant::now(), cpu());
    for _ in 0..STARTS {
        let mut cmd = Command::new("/bin/true");
        cmd.confinement(c);
        let child = cmd.spawn().expect("spawn");
        child.wait().expect("wait");
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / STARTS as f64;
    (per(wall.elapsed()), per(cpu() - cpu0))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("spawn-cost-{}", std::process::id()));
    let own = dir.join("me");
    std::fs::create_dir_all(&own).expect("a scratch folder");
    let support = Support::probe();
    let policy = Policy::named("meta-ttt").expect("policy");
    let denied = vec![dir.clone()];
    let setup = Setup {
        policy: &policy,
        own_folder: &own,
        denied: &denied,
        readable: &[],
    };
    let confined = Confinement::prepare(&setup, &support).expect("confinement");
    let minimal = Confinement::minimal();
    let (mut wall, mut cpu_ratio) = (Vec::new(), Vec::new());
    let (mut c_us, mut m_us) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let m = starts(&minimal);
        let c = starts(&confined);
        wall.push(c.0 / m.0);
        cpu_ratio.push(c.1 / m.1);
        c_us.push(c.1);
        m_us.push(m.1);
    }
    println!(
        "spawn cost: confined {:.0} us cpu/start, minimal {:.0}; cpu ratio (median of {ROUNDS}) {:.3}, wall ratio {:.3}",
        median(c_us),
        median(m_us),
        median(cpu_ratio.clone()),
        median(wall.clone())
    );
    println!("  cpu ratios per round: {cpu_ratio:.3?}");
    println!("  wall ratios per round: {wall:.3?}");
    let _ = std::fs::remove_dir_all(&dir);
}
