"""The driver's transient-error retries are one short log line of ours, not its raw dump."""

import logging

from neo4j.exceptions import TransientError

import neo4j_retag.db  # noqa: F401 - installs the filter


def test_transient_retry_logged_briefly(caplog):
    err = TransientError._hydrate_neo4j(
        code="Neo.TransientError.Transaction.DeadlockDetected",
        message="ForsetiClient[transactionId=7] can't acquire ExclusiveLock{...} Wait list: ...")
    with caplog.at_level(logging.INFO):
        logging.getLogger("neo4j.session").warning(
            "Transaction failed and will be retried in %ss (%s)", 0.9, err)
        logging.getLogger("neo4j.session").warning("something else")
    messages = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert ("neo4j_retag.db", logging.INFO, "Neo4j transient error DeadlockDetected: the driver "
            "retries the transaction") in messages
    assert not any("ForsetiClient" in m for _, _, m in messages)
    assert ("neo4j.session", logging.WARNING, "something else") in messages


def test_driver_imported_without_pandas_and_pyarrow():
    import subprocess
    import sys
    code = ("import sys, neo4j_retag.db; print('pandas' in sys.modules, 'pyarrow' in sys.modules);"
            " import pandas, pyarrow; print(pandas.DataFrame({'a': [1]}).shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False False", "(1, 1)"]
