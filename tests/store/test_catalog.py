"""The catalog: numbered migrations, transactions, and sharing the file between processes."""

import subprocess
import sys
import threading
import time

import pytest

from store.catalog import Catalog, migrations


def test_migrations_are_numbered_consecutively():
    numbers = [number for number, _, _ in migrations()]
    assert numbers == list(range(1, len(numbers) + 1))


def test_migrating_twice_is_a_no_op(tmp_path):
    path = tmp_path / "catalog.duckdb"
    assert Catalog(path).schema_version() == len(migrations())
    assert Catalog(path).schema_version() == len(migrations())
    with Catalog(path).connect() as con:
        assert con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(migrations())


def test_a_failing_unit_of_work_rolls_back(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    with pytest.raises(RuntimeError):
        with catalog.connect() as con:
            con.execute("INSERT INTO presets (name, config) VALUES ('p', '{}')")
            raise RuntimeError("boom")
    with catalog.connect() as con:
        assert con.execute("SELECT count(*) FROM presets").fetchone()[0] == 0


def test_a_second_process_waits_for_the_lock_instead_of_failing(tmp_path):
    path = tmp_path / "catalog.duckdb"
    Catalog(path).schema_version()
    holder = "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('locked', flush=True); time.sleep(1.5)"
    process = subprocess.Popen([sys.executable, "-c", holder, str(path)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "locked"
    started = time.monotonic()
    with Catalog(path, lock_timeout_s=30).connect() as con:
        assert con.execute("SELECT 1").fetchone() == (1,)
    waited = time.monotonic() - started
    process.wait(timeout=10)
    assert waited > 0.2  # it really had to wait for the other process


def test_threads_share_one_catalog_safely(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    errors = []

    def write(number):
        try:
            with catalog.connect() as con:
                con.execute("INSERT INTO presets (name, config) VALUES (?, '{}')", [f"p{number}"])
        except Exception as error:  # collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with catalog.connect() as con:
        assert con.execute("SELECT count(*) FROM presets").fetchone()[0] == 8


def _other_process_can_open(path) -> bool:
    probe = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    return subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True).returncode == 0


def test_kept_open_holds_the_file_for_its_transactions_and_lets_go_on_request(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    with catalog.kept_open() as held:
        for number in range(3):  # transactions inside reuse the open file
            with catalog.connect() as con:
                con.execute("INSERT INTO presets (name, config) VALUES (?, '{}')", [f"p{number}"])
        assert not _other_process_can_open(catalog.path)
        with held.let_go():
            assert _other_process_can_open(catalog.path)  # another process gets its turn meanwhile
        assert not _other_process_can_open(catalog.path)
    assert _other_process_can_open(catalog.path)
    with catalog.connect() as con:
        assert con.execute("SELECT count(*) FROM presets").fetchone()[0] == 3
