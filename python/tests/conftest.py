"""Fixtures of the Python tests: the shared data (../shared beside the repository, or
WEBCORPUS_SHARED) and the `webcorpus` binary of the same checkout (WEBCORPUS_BIN, default
target/debug/webcorpus, built with cargo when missing) to compare with. A missing one fails the
test with what to do; nothing is skipped."""

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shared() -> Path:
    path = Path(os.environ.get("WEBCORPUS_SHARED", REPO.parent / "shared"))
    if not (path / "data").is_dir() or not (path / "sites").is_dir():
        pytest.fail(f"the shared data is missing ({path}/data, {path}/sites): put ../shared beside the repository")
    return path


@pytest.fixture(scope="session")
def binary() -> Path:
    path = Path(os.environ.get("WEBCORPUS_BIN", REPO / "target" / "debug" / "webcorpus"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--quiet", "--bin", "webcorpus"], cwd=REPO, check=True)
    return path


def cli_lines(binary: Path, *args: str) -> list:
    """The JSON lines `webcorpus ARGS` prints (run in the repository: its config.toml)."""
    out = subprocess.run([str(binary), *args], cwd=REPO, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def page_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data
