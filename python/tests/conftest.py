"""Shared inputs: seeded GitHub-event-like and order-book-like streams written by the Swift tool (independently of
the Arrow writer under test), and the tool itself."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def tool() -> str:
    for candidate in [os.environ.get("FIREPACK_TOOL"), REPOSITORY / ".build/debug/firepack", REPOSITORY / ".build/release/firepack"]:
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("the firepack tool is not built (swift build)")


def make_stream(folder: Path, kind: str, count: int, seed: int = 7) -> Path:
    lines = folder / f"{kind}-{count}.jsonl"
    stream = folder / f"{kind}-{count}.fpks"
    if not stream.exists():
        subprocess.run([sys.executable, str(REPOSITORY / "scripts/generate/make-events.py"), kind, str(lines), str(count), str(seed)], check=True)
        subprocess.run([tool(), "convert", str(lines), str(stream)], check=True, capture_output=True)
    return stream


@pytest.fixture(scope="session")
def data_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("firepack-data")


@pytest.fixture(scope="session")
def events(data_folder):
    return make_stream(data_folder, "events", 3000)


@pytest.fixture(scope="session")
def orders(data_folder):
    return make_stream(data_folder, "orders", 3000)


@pytest.fixture(scope="session")
def fixtures():
    return REPOSITORY / "Fixtures"


@pytest.fixture
def firepack_tool():
    return tool()


@pytest.fixture
def folder(tmp_path):
    return tmp_path


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session for every Spark test (the JVM starts once per process, so the connector's jar is
    put on its class path here), with the Python data source registered."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession
    from firepack.spark import FirePackDataSource, jar_path
    # Spark's Python workers run this interpreter (the one with firepack installed), not whatever python3 is first.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    builder = (SparkSession.builder.master("local[2]").appName("firepack-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g"))
    if jar_path():
        builder = builder.config("spark.jars", jar_path())
    session = builder.getOrCreate()
    session.dataSource.register(FirePackDataSource)
    yield session
    session.stop()
