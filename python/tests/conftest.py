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
        subprocess.run([sys.executable, str(REPOSITORY / "scripts/make-events.py"), kind, str(lines), str(count), str(seed)], check=True)
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
