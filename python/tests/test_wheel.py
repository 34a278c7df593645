"""The installed package carries its native core and the Swift runtime it links: it runs where no Swift toolchain
is on any path (checked in a child process with a bare environment, whose mapped libraries are listed)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import firepack


def test_the_installed_package_runs_without_a_toolchain(fixtures):
    if os.environ.get("FIREPACK_NATIVE_LIB"):
        pytest.skip("firepack is using a development library (FIREPACK_NATIVE_LIB), not an installed wheel")
    package = Path(firepack.__file__).resolve().parent
    bundled = sorted(path.name for path in (package / "lib").iterdir())
    assert "libFirePackArrowC.so" in bundled and "libswiftCore.so" in bundled, bundled
    if os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
        # The Spark connector, beside the library it loads (test_spark_connector.py runs it from here).
        assert "firepack-spark.jar" in bundled, bundled
    swift = shutil.which("swift")
    toolchain = str(Path(swift).resolve().parents[2]) if swift else "/opt/swift"
    code = ("import shutil, firepack, sys\n"
            "table = firepack.read_table(sys.argv[1])\n"
            "print('rows', table.num_rows, 'swift', shutil.which('swift'))\n"
            "print(''.join(line for line in open('/proc/self/maps') if '.so' in line))\n")
    result = subprocess.run([sys.executable, "-c", code, str(fixtures / "books.fpks")], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}, cwd="/")
    assert result.returncode == 0, result.stderr
    first, maps = result.stdout.split("\n", 1)
    assert first == "rows 5 swift None"
    loaded = {line.split()[-1] for line in maps.splitlines() if len(line.split()) >= 6}
    assert str(package / "lib" / "libswiftCore.so") in loaded
    assert not [path for path in loaded if path.startswith(toolchain)], f"loaded from the toolchain: {loaded}"
