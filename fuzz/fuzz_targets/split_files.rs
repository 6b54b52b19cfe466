//! The job and result files of split proofs: the first byte picks the reader (job or result
//! file), the rest is the file. Reading never panics; a file that is read passed its checks
//! (its format, a position that plays its rules, an answer that agrees with its bound), and
//! written back as JSON it reads again to the same value.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mancala_engine::split::{Job, JobResult, JOB_FORMAT, RESULT_FORMAT};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let path = Path::new("fuzz.json");
    if pick % 2 == 0 {
        let Ok((job, pos)) = Job::parse(path, bytes) else {
            return;
        };
        assert_eq!(job.format, JOB_FORMAT);
        assert_eq!(
            pos.rules().to_string(),
            job.rules
                .parse::<mancala_core::Rules>()
                .unwrap()
                .to_string()
        );
        let text = serde_json::to_string(&job).unwrap();
        let (again, _) =
            Job::parse(path, text.as_bytes()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(again, job);
    } else {
        let Ok(r) = JobResult::parse(path, bytes) else {
            return;
        };
        assert_eq!(r.format, RESULT_FORMAT);
        assert_eq!(r.holds, r.bound >= r.at_least);
        let text = serde_json::to_string(&r).unwrap();
        let again =
            JobResult::parse(path, text.as_bytes()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(again.bound, r.bound);
        assert_eq!(
            (again.id, &again.position, again.holds),
            (r.id, &r.position, r.holds)
        );
    }
});
