//! Sharding: a tournament played as 3 shard processes and merged has the
//! standings of an unsharded run (every challenge that shards); a shard
//! killed with SIGKILL is reported missing, then rerun to the same result;
//! a shard of another tournament is refused; `--shard auto` and what cannot
//! shard; the Slurm scripts, the Kubernetes manifests and the README's
//! local commands as written.

use crate::common::{bot, first_legal, python, q, referee, root, stderr, stdout, tournament};
use referee::shard::Shard;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `referee --instructions instructions.txt --shard I/N --db
/// shard-I.db` for every I at once (N processes), each to its end.
fn run_shards(dir: &Path, n: u32, extra: &[&str]) {
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_referee"))
                .args(["--instructions", "instructions.txt", "--quiet"])
                .args([
                    "--shard",
                    &format!("{i}/{n}"),
                    "--db",
                    &format!("shard-{i}.db"),
                ])
                .args(extra)
                .current_dir(dir)
                .env_remove("RUST_LOG")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("referee runs")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "shard {i}: {}", stderr(&out));
    }
}

fn merge(dir: &Path, n: u32) -> Output {
    let mut args = vec!["merge".to_string(), "--db".into(), "results.db".into()];
    args.extend((0..n).map(|i| format!("shard-{i}.db")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    referee(dir, &args)
}

/// `referee standings` of `dir/results.db` in `format`.
fn standings(dir: &Path, format: &str) -> String {
    let out = referee(
        dir,
        &["standings", "--db", "results.db", "--format", format],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

/// The json standings less what measures time (which no two runs share).
fn outcomes(dir: &Path) -> Value {
    let mut rows: Value = serde_json::from_str(&standings(dir, "json")).unwrap();
    for row in rows.as_array_mut().unwrap() {
        if let Some(row) = row.as_object_mut() {
            for timed in ["time", "charged_time", "cpu_time", "cpu_seconds"] {
                row.remove(timed);
            }
        }
    }
    rows
}

/// The text standings less meta-ttt's time line.
fn text(dir: &Path) -> String {
    standings(dir, "text")
        .lines()
        .filter(|l| !l.starts_with("With "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every row of every table of a database, in order.
fn dump(db: &Path) -> BTreeMap<String, Vec<String>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|t| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM {t}")).unwrap();
            let columns = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    Ok((0..columns)
                        .map(|c| format!("{:?}", r.get_ref(c).unwrap()))
                        .collect::<Vec<_>>()
                        .join("|"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            rows.sort();
            (t, rows)
        })
        .collect()
}

fn game_rows(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .unwrap()
}

/// A tournament made by `setup` in two folders: played whole in one, as 3
/// shards merged in the other. Their standings are the same (`text` too
/// unless `text_has_times`), and merging again changes nothing.
fn sharded_is_whole(
    setup: impl Fn(&Path),
    text_has_times: bool,
) -> (tempfile::TempDir, tempfile::TempDir) {
    let whole = tempfile::tempdir().unwrap();
    setup(whole.path());
    let out = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let sharded = tempfile::tempdir().unwrap();
    setup(sharded.path());
    run_shards(sharded.path(), 3, &[]);
    let merged = merge(sharded.path(), 3);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    assert!(
        stderr(&merged).contains("3 of 3 parts are in it"),
        "{}",
        stderr(&merged)
    );

    assert_eq!(outcomes(sharded.path()), outcomes(whole.path()));
    if !text_has_times {
        assert_eq!(text(sharded.path()), text(whole.path()));
    }
    let db = sharded.path().join("results.db");
    assert_eq!(game_rows(&db), game_rows(&whole.path().join("results.db")));

    let play_seconds = |db: &Path| -> f64 {
        rusqlite::Connection::open(db)
            .unwrap()
            .query_row("SELECT max(play_seconds) FROM tournaments", [], |r| {
                r.get(0)
            })
            .unwrap()
    };
    let parts: f64 = (0..3)
        .map(|i| play_seconds(&sharded.path().join(format!("shard-{i}.db"))))
        .sum();
    assert!(
        (play_seconds(&db) - parts).abs() < 1e-9,
        "the shards' play time, once"
    );
    let before = dump(&db);
    let again = merge(sharded.path(), 3);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains(": 0 rows new or changed"),
        "{}",
        stderr(&again)
    );
    assert_eq!(dump(&db), before, "a second merge changes nothing");
    (whole, sharded)
}

// ---------------------------------------------------------------------------
// Each challenge that shards.

fn meta_ttt(dir: &Path) {
    let tactician = dir.join("tactician");
    std::fs::create_dir_all(&tactician).unwrap();
    std::fs::copy(
        root().join("examples/bots/meta-ttt/tactician/bot.py"),
        tactician.join("bot.py"),
    )
    .unwrap();
    let ins = format!(
        "challenge: meta-ttt\ntimeout-ms: 10000\nmax-rounds: 8\nfirstLegal {}\nfirstLegalPy {} {}\n\
         tactician {} tactician/bot.py\nsilent true\n",
        q(&first_legal()),
        python(),
        q(&bot("first_legal.py")),
        python(),
    );
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
}

const META_TTT_BOTS: [&str; 4] = ["firstLegal", "firstLegalPy", "tactician", "silent"];

#[test]
fn meta_ttt_in_three_shards_is_the_whole_tournament() {
    sharded_is_whole(meta_ttt, false);
}

// Bots whose results follow from the rules (tests/it/bf_joust.rs).
const RUSHER: &str = "(>)*8([-]>)*22";

fn bf_joust(dir: &Path) {
    std::fs::write(
        dir.join("instructions.txt"),
        "challenge: bf-joust\ntape-lengths: all\n\nRusher\nMirror\nIdle\nSuicide\nDawdler\n",
    )
    .unwrap();
    for (name, source) in [
        ("Rusher", RUSHER),
        ("Mirror", RUSHER),
        ("Idle", "an empty program"),
        ("Suicide", "<"),
        ("Dawdler", "(+)*50(>)*9([-]>)*21"),
    ] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(dir.join(name).join(format!("{name}.bf")), source).unwrap();
    }
}

#[test]
fn bf_joust_in_three_shards_is_the_whole_tournament() {
    sharded_is_whole(bf_joust, false);
}

fn forty(dir: &Path) {
    let example = |name: &str| {
        format!(
            "{} {} {}",
            q(Path::new(python())),
            q(&root().join("protocols/forty/forty_host.py")),
            q(&root().join(format!("protocols/forty/examples/{name}.py")))
        )
    };
    let ins = format!(
        "challenge: forty\nseed: 2024\ngames: 3000\nbots-per-game: 3\ntimeout-ms: 10000\n\
         GoToTenBot {}\nStopBot {}\nThrowTwiceBot {}\nCatchUpBot {}\n",
        example("GoToTenBot"),
        example("StopBot"),
        example("ThrowTwiceBot"),
        example("CatchUpBot"),
    );
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
}

#[test]
fn forty_in_three_shards_is_the_whole_tournament() {
    let (_whole, sharded) = sharded_is_whole(forty, true);
    // A block per shard: block b is shard b mod 3's.
    for i in 0..3 {
        assert_eq!(game_rows(&sharded.path().join(format!("shard-{i}.db"))), 1);
    }
}

fn heist(dir: &Path) {
    let fixed = q(&bot("heist_fixed.sh"));
    let ins = format!(
        "challenge: heist\nseed: 11\ngames: 4\ntournaments: 4\nrabble: 3\ntimeout-ms: 10000\n\
         probe {} {}\ncrosser sh {fixed} 5 'double cross'\nsnitch sh {fixed} 3 finger\n\
         passive sh {fixed} 0 guncheck\n",
        python(),
        q(&bot("heist_probe.py")),
    );
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
}

#[test]
fn heist_in_three_shards_is_the_whole_tournament() {
    let (whole, sharded) = sharded_is_whole(heist, false);
    // Each series' log is written by the shard that played it, and is the
    // unsharded run's.
    for t in 1..=4 {
        let name = game_heist::log::log_path(t);
        let log = |d: &Path| std::fs::read_to_string(d.join(&name)).unwrap();
        assert_eq!(log(sharded.path()), log(whole.path()), "{name:?}");
    }
}

// ---------------------------------------------------------------------------
// A killed shard; another tournament's shard.

/// The shard of 3 playing the most meta-ttt pairings, and how many.
fn busiest_meta_ttt_shard() -> (u32, usize) {
    (0..3)
        .map(|i| {
            let shard = Shard::new(i, 3).unwrap();
            let pairings = (0..4)
                .flat_map(|a| (a + 1..4).map(move |b| (a, b)))
                .filter(|&(a, b)| shard.owns_pairing(META_TTT_BOTS[a], META_TTT_BOTS[b]))
                .count();
            (i, pairings)
        })
        .max_by_key(|&(_, p)| p)
        .unwrap()
}

#[test]
fn a_killed_shard_is_missing_from_the_merge_until_rerun() {
    let (killed, pairings) = busiest_meta_ttt_shard();
    assert!(pairings >= 2, "6 pairings in 3 shards: one has 2 or more");
    let whole = tempfile::tempdir().unwrap();
    meta_ttt(whole.path());
    let out = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let dir = tempfile::tempdir().unwrap();
    meta_ttt(dir.path());
    let shard_args = |i: u32| {
        vec![
            "--instructions".to_string(),
            "instructions.txt".into(),
            "--shard".into(),
            format!("{i}/3"),
            "--db".into(),
            format!("shard-{i}.db"),
        ]
    };
    for i in (0..3).filter(|&i| i != killed) {
        let args = shard_args(i);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = referee(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // SIGKILL once its first game is reported (so committed).
    let args = shard_args(killed);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(crate::common::kill_after_reports(dir.path(), &args, 1), 1);

    let partial = merge(dir.path(), 3);
    let err = stderr(&partial);
    assert_eq!(partial.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!(
            "shard-{killed}.db: shard {killed}/3 is not finished"
        )),
        "{err}"
    );
    assert!(err.contains(&format!("missing: shard {killed}/3")), "{err}");
    // Nothing of the unfinished part is counted as played, and the
    // standings say that a part is missing.
    let merged = dir.path().join("results.db");
    assert_eq!(game_rows(&merged), 12 - 2 * pairings as i64);
    let out = referee(dir.path(), &["standings", "--db", "results.db"]);
    assert!(
        stderr(&out).contains(&format!("part of the tournament only: {killed}/3 missing")),
        "{}",
        stderr(&out)
    );

    // Rerun: it resumes, finishes, and the merge is complete.
    let out = referee(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("resuming: 1 of"), "{}", stderr(&out));
    let complete = merge(dir.path(), 3);
    assert_eq!(complete.status.code(), Some(0), "{}", stderr(&complete));
    let out = referee(dir.path(), &["standings", "--db", "results.db"]);
    assert_eq!(stderr(&out), "", "every part is there");
    assert_eq!(outcomes(dir.path()), outcomes(whole.path()));
    assert_eq!(text(dir.path()), text(whole.path()));
}

#[test]
fn a_shard_of_another_tournament_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    bf_joust(dir.path());
    let shard = |i: u32, extra: &[&str]| {
        let (s, db) = (format!("{i}/2"), format!("shard-{i}.db"));
        let mut args = vec![
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--shard",
            &s,
            "--db",
            &db,
        ];
        args.extend_from_slice(extra);
        let out = referee(dir.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    shard(0, &[]);
    shard(1, &["--set", "cycles=5000"]);
    let out = merge(dir.path(), 2);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "referee: error: shard-1.db: not the tournament of shard-0.db: \
         setting `cycles` is not set in shard-0.db, `5000` in shard-1.db\n"
    );
    assert!(!dir.path().join("results.db").exists(), "nothing merged");

    // A bot's program changed between the shards.
    std::fs::write(dir.path().join("Idle/Idle.bf"), ">+<").unwrap();
    shard(1, &[]);
    let out = merge(dir.path(), 2);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("shard-1.db: not the tournament of shard-0.db: bot `Idle` differs"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------------------
// --shard auto, and what does not shard.

fn referee_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.args(args).current_dir(dir).env_remove("RUST_LOG");
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
        "REFEREE_SHARDS",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

#[test]
fn shard_auto_reads_the_job_engine_or_says_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    bf_joust(dir.path());
    let args = [
        "--instructions",
        "instructions.txt",
        "--quiet",
        "--shard",
        "auto",
    ];
    let none = referee_env(dir.path(), &args, &[]);
    assert_eq!(none.status.code(), Some(2));
    let err = stderr(&none);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("neither a Slurm array task"), "{err}");

    // --array=1-3, task 2: shard 1/3, in the default shard database.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
    ];
    let out = referee_env(dir.path(), &args, &slurm);
    assert!(out.status.success(), "{}", stderr(&out));
    let store = referee::results::Store::open(&dir.path().join("shard-1-of-3.db")).unwrap();
    let (_, part) = store.sharded_tournament().unwrap().unwrap();
    assert_eq!(
        (part.shard, part.complete),
        (Shard::new(1, 3).unwrap(), true)
    );

    // Kubernetes: the index, and the count from the flag.
    let out = referee_env(
        dir.path(),
        &[&args[..], &["--shards", "3", "--db", "k8s.db"][..]].concat(),
        &[("JOB_COMPLETION_INDEX", "2")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let store = referee::results::Store::open(&dir.path().join("k8s.db")).unwrap();
    assert_eq!(
        store.sharded_tournament().unwrap().unwrap().1.shard,
        Shard::new(2, 3).unwrap()
    );
}

#[test]
fn gun_duel_and_heist_without_a_seed_refuse_to_shard() {
    let dir = tournament("challenge: gun-duel\nA true\nB true\n");
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--shard", "0/2"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "referee: error: --shard: gun-duel's elimination rounds each depend on the results of \
         the one before, so its tournament is one chain that cannot be parted; run it without \
         --shard\n"
    );
    let dir = tournament("challenge: heist\nA true\nB true\n");
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--shard", "1/2"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("add `seed: N`"), "{}", stderr(&out));
    assert!(!dir.path().join("shard-1-of-2.db").exists());
}

// ---------------------------------------------------------------------------
// deploy/ and the README, as written.

/// A PATH with the referee binary's folder first.
fn path_with_referee() -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_referee"));
    format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn the_slurm_scripts_run_as_array_tasks_and_submit_the_merge_after_them() {
    let slurm = root().join("deploy/slurm");
    for script in ["shard.sbatch", "merge.sbatch", "submit.sh"] {
        let out = Command::new("bash")
            .arg("-n")
            .arg(slurm.join(script))
            .output()
            .unwrap();
        assert!(out.status.success(), "{script}: {}", stderr(&out));
        // The usual lint, where it is installed.
        if let Ok(out) = Command::new("shellcheck").arg(slurm.join(script)).output() {
            assert!(out.status.success(), "{script}: {}", stdout(&out));
        }
    }
    let whole = tempfile::tempdir().unwrap();
    bf_joust(whole.path());
    let out = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // --array=1-3: three tasks as Slurm starts them, then the merge job.
    let dir = tempfile::tempdir().unwrap();
    bf_joust(dir.path());
    for id in ["1", "2", "3"] {
        let out = Command::new("bash")
            .arg(slurm.join("shard.sbatch"))
            .arg(dir.path())
            .env("PATH", path_with_referee())
            .envs([
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
                ("SLURM_CPUS_PER_TASK", "1"),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "task {id}: {}", stderr(&out));
        assert!(dir.path().join(format!("shards/shard-{id}.db")).exists());
    }
    let out = Command::new("bash")
        .arg(slurm.join("merge.sbatch"))
        .arg(dir.path())
        .env("PATH", path_with_referee())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), standings(whole.path(), "text"));

    // submit.sh, against an sbatch that records its arguments.
    let fake = tempfile::tempdir().unwrap();
    let log = fake.path().join("calls");
    let sbatch = fake.path().join("sbatch");
    std::fs::write(
        &sbatch,
        format!(
            "#!/bin/sh\necho \"$*\" >> {}\necho '4242;cluster'\n",
            q(&log)
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&sbatch)
        .status()
        .unwrap();
    let out = Command::new("bash")
        .arg(slurm.join("submit.sh"))
        .args([dir.path().to_str().unwrap(), "16"])
        .env(
            "PATH",
            format!(
                "{}:{}",
                fake.path().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    let here = dir.path().canonicalize().unwrap();
    assert_eq!(
        calls,
        [
            format!(
                "--parsable --array=0-15 {} {}",
                slurm.join("shard.sbatch").display(),
                here.display()
            ),
            format!(
                "--dependency=afterok:4242 {} {}",
                slurm.join("merge.sbatch").display(),
                here.display()
            ),
        ]
    );
}

#[test]
fn the_kubernetes_manifests_parse_and_agree_on_the_shard_count() {
    use yaml_rust2::YamlLoader;
    let load = |name: &str| {
        let text = std::fs::read_to_string(root().join("deploy/kubernetes").join(name)).unwrap();
        let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(docs.len(), 1, "{name}");
        docs.remove(0)
    };
    let shards = load("shards-job.yaml");
    assert_eq!(shards["kind"].as_str(), Some("Job"));
    assert_eq!(shards["apiVersion"].as_str(), Some("batch/v1"));
    let spec = &shards["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let completions = spec["completions"].as_i64().unwrap();
    assert_eq!(spec["parallelism"].as_i64(), Some(completions));
    let container = &spec["template"]["spec"]["containers"][0];
    let env = container["env"].as_vec().unwrap();
    let count = env
        .iter()
        .find(|e| e["name"].as_str() == Some(referee::shard::SHARDS_ENV))
        .and_then(|e| e["value"].as_str())
        .unwrap();
    assert_eq!(count, completions.to_string());
    let args = container["args"][0].as_str().unwrap();
    assert!(args.contains("--shard auto"), "{args}");
    assert!(args.contains("shard-$JOB_COMPLETION_INDEX.db"), "{args}");

    let merge = load("merge-job.yaml");
    assert_eq!(merge["kind"].as_str(), Some("Job"));
    let args = merge["spec"]["template"]["spec"]["containers"][0]["args"][0]
        .as_str()
        .unwrap();
    assert!(
        args.starts_with("referee merge --db /tournament/results.db /tournament/shards/shard-*.db"),
        "{args}"
    );
    // Both mount the same volume claim.
    let claim = |job: &yaml_rust2::Yaml| {
        job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
            .as_str()
            .map(str::to_string)
    };
    assert_eq!(claim(&shards), claim(&merge));
    assert!(claim(&shards).is_some());
}

/// The README's cluster section.
fn readme_cluster_section() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("## Running on a cluster").expect("the section");
    let rest = &readme[start + 3..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn the_readme_commands_are_the_deploy_files_and_run_as_written() {
    let section = readme_cluster_section();
    // Every file it names exists.
    for word in section.split(|c: char| c.is_whitespace() || "`()[]".contains(c)) {
        let word = word.trim_end_matches([',', '.', ':']);
        if word.starts_with("deploy/") {
            assert!(root().join(word).exists(), "{word}");
        }
    }
    // The local commands, verbatim: four shards in the background, merge,
    // standings.
    let local = section
        .split("**Without a cluster**")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("the local commands");
    assert_eq!(local.lines().count(), 3, "{local}");

    let whole = tempfile::tempdir().unwrap();
    bf_joust(whole.path());
    let out = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let dir = tempfile::tempdir().unwrap();
    bf_joust(dir.path());
    let out = Command::new("bash")
        .args(["-e", "-c", local])
        .current_dir(dir.path())
        .env("PATH", path_with_referee())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), standings(whole.path(), "text"));
}

#[test]
fn a_killed_heist_shard_resumes_its_series_from_the_checkpoint() {
    let whole = tempfile::tempdir().unwrap();
    heist(whole.path());
    let out = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Series 1 and 4 are shard 0's (numbers modulo 3): kill it in series
    // 1, once a game is reported (so committed with its checkpoint).
    let dir = tempfile::tempdir().unwrap();
    heist(dir.path());
    let args = |i: u32| {
        [
            "--instructions",
            "instructions.txt",
            "--jobs",
            "1",
            "--shard",
            &format!("{i}/3"),
            "--db",
            &format!("shard-{i}.db"),
        ]
        .map(String::from)
    };
    let a0 = args(0);
    let a0: Vec<&str> = a0.iter().map(String::as_str).collect();
    assert_eq!(crate::common::kill_after_reports(dir.path(), &a0, 1), 1);
    for i in [1, 2, 0] {
        let a = args(i);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = referee(dir.path(), &a);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = merge(dir.path(), 3);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(text(dir.path()), text(whole.path()));
    assert_eq!(outcomes(dir.path()), outcomes(whole.path()));
    for t in [1, 4] {
        let name = game_heist::log::log_path(t);
        let log = |d: &Path| std::fs::read_to_string(d.join(&name)).unwrap();
        assert_eq!(log(dir.path()), log(whole.path()), "{name:?}");
    }
}
