//! A shard: one deterministic part of a tournament's plan, so that a
//! cluster's job engine (a Slurm job array, a Kubernetes Indexed Job) can
//! play a tournament as N independent processes whose databases
//! `referee merge` combines ([`crate::merge`]).
//!
//! Pure: which part a unit of the plan belongs to depends on the unit alone,
//! so the parts are disjoint, cover the plan, and never depend on
//! scheduling. A unit is what must stay in one process: a pairing of two
//! bots (meta-ttt, bf-joust), a block of games (forty), a series of
//! dependent games (heist). Pairings are assigned by a hash of the two
//! names, so adding a bot moves no existing pairing to another shard;
//! blocks and series, numbered independently of the field, by index modulo
//! N, which balances them exactly.

use std::fmt;
use std::str::FromStr;

/// The environment variable a Kubernetes Indexed Job's manifest sets to
/// the job's `completions` (Kubernetes gives the index, not the count).
pub const SHARDS_ENV: &str = "REFEREE_SHARDS";

/// Part `index` of `count` (0 <= index < count). `0/1` is the whole plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::WHOLE
    }
}

impl Shard {
    /// The whole plan: an unsharded run.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Part `index` of `count`, if that is a part.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// Whether unit number `i` of a plan whose units are numbered
    /// independently of the field (forty's blocks, heist's series) is this
    /// shard's.
    pub fn owns_index(self, i: u64) -> bool {
        i % u64::from(self.count) == u64::from(self.index)
    }

    /// Whether the unit named `key` is this shard's: a stable hash of the
    /// key, so a unit stays in its shard whatever else the plan holds.
    pub fn owns_key(self, key: &str) -> bool {
        self.is_whole() || key_hash(key) % u64::from(self.count) == u64::from(self.index)
    }

    /// Whether the pairing of bots `a` and `b` (either order) is this shard's.
    pub fn owns_pairing(self, a: &str, b: &str) -> bool {
        self.owns_key(&pairing_key(a, b))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: give I/N with 0 <= I < N (or `auto`)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        Shard::new(i, n).ok_or_else(bad)
    }
}

/// `--shard`: a part given as `I/N`, or `auto`, read from the job
/// engine's environment ([`from_env`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Given(Shard),
    Auto,
}

impl FromStr for ShardArg {
    type Err = String;

    fn from_str(s: &str) -> Result<ShardArg, String> {
        if s == "auto" {
            Ok(ShardArg::Auto)
        } else {
            s.parse().map(ShardArg::Given)
        }
    }
}

/// The shard a job engine's environment names (`get` reads a variable):
/// a Slurm array task (`SLURM_ARRAY_TASK_ID` counted from
/// `SLURM_ARRAY_TASK_MIN`, of `SLURM_ARRAY_TASK_COUNT`, so `--array=1-16`
/// gives shards 0 to 15), or a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX` of `shards` (`--shards N`) or else of
/// [`SHARDS_ENV`]. The error is one line saying what is missing.
pub fn from_env(
    get: impl Fn(&str) -> Option<String>,
    shards: Option<u32>,
) -> Result<Shard, String> {
    let number = |name: &str| -> Result<Option<u32>, String> {
        match get(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("--shard auto: {name} is `{v}`, not a number")),
        }
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let count = number("SLURM_ARRAY_TASK_COUNT")?
            .ok_or("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
        let index = id.checked_sub(min).ok_or_else(|| {
            format!("--shard auto: SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}")
        })?;
        // An array with a step (--array=0-15:2) has gaps: its ids do not
        // number the shards.
        return Shard::new(index, count).ok_or_else(|| {
            format!(
                "--shard auto: Slurm task {id} of {count} from {min} is not a shard \
                 (use a plain --array=A-B, without a step or a list)"
            )
        });
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = match shards {
            Some(n) => n,
            None => number(SHARDS_ENV)?.ok_or_else(|| {
                format!(
                    "--shard auto: JOB_COMPLETION_INDEX is set but the number of shards is not: \
                     pass --shards N or set {SHARDS_ENV} to the Job's completions"
                )
            })?,
        };
        return Shard::new(index, count).ok_or_else(|| {
            format!("--shard auto: JOB_COMPLETION_INDEX {index} is not below {count} shards")
        });
    }
    Err(
        "--shard auto: neither a Slurm array task (SLURM_ARRAY_TASK_ID) nor a Kubernetes \
         Indexed Job (JOB_COMPLETION_INDEX) is in the environment; pass --shard I/N"
            .to_string(),
    )
}

/// The name of the pairing of bots `a` and `b`, the same in either order.
pub fn pairing_key(a: &str, b: &str) -> String {
    let (first, second) = if a <= b { (a, b) } else { (b, a) };
    // Length-prefixed: no pair of names reads as another.
    format!("pairing/{}:{first}/{second}", first.len())
}

/// A key's stable hash (blake3, so it is the same on every machine and in
/// every version of Rust).
fn key_hash(key: &str) -> u64 {
    let hash = blake3::hash(key.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn parses_i_of_n_and_refuses_what_is_not_a_part() {
        assert_eq!(
            "3/16".parse::<Shard>(),
            Ok(Shard {
                index: 3,
                count: 16
            })
        );
        assert_eq!("auto".parse::<ShardArg>(), Ok(ShardArg::Auto));
        for bad in ["16/16", "1/0", "-1/4", "1", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn slurm_arrays_count_from_their_first_task() {
        let task = |id: &str, min: &str, count: &str| {
            from_env(
                env(&[
                    ("SLURM_ARRAY_TASK_ID", id),
                    ("SLURM_ARRAY_TASK_MIN", min),
                    ("SLURM_ARRAY_TASK_COUNT", count),
                ]),
                None,
            )
        };
        // --array=1-16
        assert_eq!(
            task("1", "1", "16"),
            Ok(Shard {
                index: 0,
                count: 16
            })
        );
        assert_eq!(
            task("16", "1", "16"),
            Ok(Shard {
                index: 15,
                count: 16
            })
        );
        // --array=0-15
        assert_eq!(
            task("7", "0", "16"),
            Ok(Shard {
                index: 7,
                count: 16
            })
        );
        // --array=0-15:2 has ids up to 14 but 8 tasks.
        assert!(task("14", "0", "8").unwrap_err().contains("without a step"));
        assert!(task("x", "0", "8").unwrap_err().contains("not a number"));
        let no_count = from_env(env(&[("SLURM_ARRAY_TASK_ID", "1")]), None);
        assert!(no_count.unwrap_err().contains("SLURM_ARRAY_TASK_COUNT"));
    }

    #[test]
    fn kubernetes_takes_the_count_from_the_flag_or_the_manifest() {
        let k8s = env(&[("JOB_COMPLETION_INDEX", "2"), (SHARDS_ENV, "4")]);
        assert_eq!(from_env(&k8s, None), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(from_env(&k8s, Some(3)), Ok(Shard { index: 2, count: 3 }));
        assert!(from_env(&k8s, Some(2)).is_err());
        let bare = from_env(env(&[("JOB_COMPLETION_INDEX", "2")]), None);
        assert!(bare.unwrap_err().contains("--shards N"));
        // Slurm first when both are set (a Kubernetes pod on a Slurm node
        // would not be one).
        let both = env(&[
            ("JOB_COMPLETION_INDEX", "2"),
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(from_env(both, Some(4)), Ok(Shard { index: 5, count: 8 }));
    }

    #[test]
    fn no_engine_is_one_line() {
        let e = from_env(env(&[]), Some(4)).unwrap_err();
        assert!(e.contains("SLURM_ARRAY_TASK_ID") && e.contains("JOB_COMPLETION_INDEX"));
        assert!(!e.contains('\n'));
    }

    #[test]
    fn a_pairing_has_one_key_in_either_order() {
        assert_eq!(pairing_key("a", "b"), pairing_key("b", "a"));
        assert_ne!(pairing_key("a", "bc"), pairing_key("ab", "c"));
        assert!(Shard::WHOLE.owns_key("anything") && Shard::WHOLE.owns_index(7));
    }

    proptest! {
        #[test]
        fn the_parts_are_disjoint_and_cover_any_plan(
            names in prop::collection::vec("[a-zA-Z0-9_]{1,8}", 2..12),
            count in 1u32..9,
            blocks in 0u64..200,
        ) {
            let shards: Vec<Shard> = (0..count).filter_map(|i| Shard::new(i, count)).collect();
            for (i, a) in names.iter().enumerate() {
                for b in &names[i + 1..] {
                    let owners = shards.iter().filter(|s| s.owns_pairing(a, b)).count();
                    prop_assert_eq!(owners, 1, "{} {}", a, b);
                    for s in &shards {
                        prop_assert_eq!(s.owns_pairing(a, b), s.owns_pairing(b, a));
                    }
                }
            }
            for block in 0..blocks {
                prop_assert_eq!(shards.iter().filter(|s| s.owns_index(block)).count(), 1);
            }
        }

        #[test]
        fn adding_a_bot_moves_no_pairing(
            names in prop::collection::vec("[a-z]{1,6}", 2..10),
            new in "[A-Z]{1,6}",
            count in 2u32..9,
        ) {
            // The owner of a pairing depends on its two names alone.
            let owner = |field: &[String], a: usize, b: usize| {
                (0..count).find(|&i| Shard { index: i, count }.owns_pairing(&field[a], &field[b]))
            };
            let mut more = names.clone();
            more.insert(0, new);
            for a in 0..names.len() {
                for b in a + 1..names.len() {
                    prop_assert_eq!(owner(&names, a, b), owner(&more, a + 1, b + 1));
                }
            }
        }
    }

    #[test]
    fn pairings_spread_over_the_shards() {
        let names: Vec<String> = (0..40).map(|i| format!("bot{i}")).collect();
        let mut per_shard = [0usize; 4];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                let s = (0..4u32)
                    .position(|k| Shard { index: k, count: 4 }.owns_pairing(a, b))
                    .unwrap();
                per_shard[s] += 1;
            }
        }
        // 780 pairings: a quarter each, give or take what a hash gives.
        for n in per_shard {
            assert!((150..240).contains(&n), "{per_shard:?}");
        }
    }
}
