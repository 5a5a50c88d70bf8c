//! A busy machine, made on purpose: two busy loops per core, two loops that
//! start an interpreter again and again, and a disk writer that fsyncs.
//! Everything runs in one process group of its own, killed on drop.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The load; stops when dropped.
pub struct Background {
    leader: Child,
}

/// Cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl Background {
    /// Starts the load, writing its scratch file in `scratch`.
    pub fn start(scratch: &Path) -> Background {
        let python = crate::common::python();
        let file = scratch.join("load-writer.bin");
        let mut script = String::new();
        for _ in 0..2 * cores() {
            script.push_str("(while :; do :; done) &\n");
        }
        // Interpreter start storms: a fresh Python (through PATH, as a bot
        // author's shim would be) and a fresh shell, again and again.
        script.push_str(&format!(
            "(while :; do {} -c 'import json, re' ; done) &\n",
            crate::common::q(Path::new(python))
        ));
        script.push_str("(while :; do python3 -c pass >/dev/null 2>&1 || sh -c : ; done) &\n");
        script.push_str(&format!(
            "(while :; do dd if=/dev/zero of={} bs=1M count=16 conv=fsync 2>/dev/null; done) &\n",
            crate::common::q(&file)
        ));
        script.push_str("wait\n");
        let leader = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("sh starts");
        // Let the load build up before anything is measured.
        std::thread::sleep(std::time::Duration::from_millis(500));
        Background { leader }
    }

    /// The 1-minute load average is at least 1 (the machine is busy while
    /// the test runs; a kernel without /proc/loadavg is taken on trust).
    pub fn busy_enough(&self) -> bool {
        let Ok(text) = std::fs::read_to_string("/proc/loadavg") else {
            return true;
        };
        text.split_whitespace()
            .next()
            .and_then(|l| l.parse::<f64>().ok())
            .is_none_or(|l| l >= 1.0)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let pgid = self.leader.id() as i32;
        // SAFETY: kill has no memory preconditions; the group is our own.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.leader.wait();
    }
}
