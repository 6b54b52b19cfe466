"""Split proofs from Python: a bound on Kalah(4,3) split into job files, every job proven,
the merge against ``mancala.solve``'s exact value; broken files refused naming them."""

import json

import pytest

import mancala

RULES = "kalah,pits=4,seeds=3"


def prove_all(jobs_dir, report):
    """Proves every job the merges wait for, round after round, until the root is decided."""
    rounds = 0
    while report["status"] == "open":
        assert report["unproven"], report
        for name in report["unproven"]:
            r = mancala.prove_job(jobs_dir / name, tt_mb=8)
            assert r["holds"] == (r["bound"] >= r["at_least"])
        report = mancala.merge(jobs_dir)
        rounds += 1
        assert rounds < 20, report
    return report


@pytest.mark.parametrize(
    "kind,offset,holds",
    [("at_least", 0, True), ("at_least", 1, False), ("at_most", 0, True), ("at_most", -1, False)],
)
def test_split_bounds_agree_with_solve(tmp_path, kind, offset, holds):
    start = mancala.Game(RULES)
    value = mancala.solve(start, tt_mb=8)["value"]
    k = value + offset
    jobs = tmp_path / "jobs"
    first = mancala.split(start, 2, jobs, **{kind: k})
    assert first["status"] == "open" and first["round"] == 1
    assert first["new_jobs"] and len(first["unproven"]) == len(first["new_jobs"])
    assert first["holds"] is None and first["side"] == "south"
    # The split's own question is "at least": "at most k" is "at least k + 1".
    assert first["at_least"] == (k if kind == "at_least" else k + 1)
    assert (jobs / "split.json").exists() and (jobs / "round-1.txt").exists()
    last = prove_all(jobs, first)
    assert last["holds"] is holds, last
    assert last["status"] == ("proven" if (last["holds"] == (kind == "at_least")) else "refuted")
    assert last["unproven"] == [] and last["results"] >= 1
    # Merging again changes nothing.
    assert mancala.merge(jobs)["holds"] is holds


def test_prove_job_keeps_a_result_and_refuses_broken_files(tmp_path):
    jobs = tmp_path / "jobs"
    r = mancala.split(mancala.Game(RULES), 1, jobs, at_least=1)
    job = jobs / "job-000001.json"
    first = mancala.prove_job(job, tt_mb=8)
    assert first["id"] == 1 and first["at_least"] == 1 and first["side"] == "south"
    assert mancala.prove_job(job, tt_mb=8) == first
    result = jobs / "job-000001.result.json"
    assert json.loads(result.read_text()) == first
    text = result.read_text()
    result.write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match="job-000001.result.json: not a valid job result"):
        mancala.merge(jobs)
    job.write_text('{"format": ')
    with pytest.raises(ValueError, match="job-000001.json: not a valid job file"):
        mancala.prove_job(job, force=True)
    with pytest.raises(ValueError, match="split.json"):
        mancala.merge(tmp_path)
    with pytest.raises(ValueError, match="already"):
        mancala.split(mancala.Game(RULES), 1, jobs)
    with pytest.raises(ValueError, match="not both"):
        mancala.split(mancala.Game(RULES), 1, tmp_path / "x", at_least=1, at_most=1)
    assert r["jobs"] == len(r["new_jobs"])
