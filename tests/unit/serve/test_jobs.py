"""serve's ingest jobs: progress adds up, and a long-lived server keeps only the newest ended
jobs (running ones always)."""

from pathlib import Path

from neo4j_retag.serve.jobs import Jobs


def test_progress_adds_up_and_keeps_the_known_total():
    jobs = Jobs()
    job = jobs.new([Path("a.txt")])
    jobs.progress(job.id, "extract", 1, 4)
    jobs.progress(job.id, "extract", 2)
    got = jobs.get(job.id)
    assert got.progress == {"extract": [3, 4]} and got.paths == ["a.txt"]
    got.progress["extract"][0] = 99  # a copy: the caller cannot change the job
    assert jobs.get(job.id).progress["extract"] == [3, 4]
    jobs.end(job.id, {"status": "done", "result": {"documents_read": 1}})
    assert jobs.get(job.id).model_dump() == {
        "id": job.id, "status": "done", "paths": ["a.txt"], "progress": {"extract": [3, 4]},
        "result": {"documents_read": 1}, "error": None}


def test_only_the_newest_ended_jobs_are_kept():
    jobs = Jobs(kept=2)
    running = jobs.new([])
    ended = [jobs.new([]).id for _ in range(4)]
    for i in ended:
        jobs.end(i, {"status": "done", "result": {}})
    assert [jobs.get(i) is not None for i in ended] == [False, False, True, True]
    assert jobs.get(running.id).status == "running"  # running jobs are never dropped
    assert len(jobs) == 3 and jobs.get("nope") is None


def test_a_long_job_that_ends_last_is_the_newest_ended_one():
    jobs = Jobs(kept=2)
    long = jobs.new([]).id
    short = [jobs.new([]).id for _ in range(2)]
    for i in short:
        jobs.end(i, {"status": "done"})
    jobs.end(long, {"status": "failed", "error": "cancelled"})  # began first, ended last
    assert jobs.get(long).error == "cancelled"
    assert jobs.get(short[0]) is None and jobs.get(short[1]) is not None
