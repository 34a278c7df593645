"""Builds the native core (the Swift package's FirePackArrowC product) and bundles it, with the Swift runtime
libraries it links, inside the package: the wheel runs on a Linux machine without a Swift toolchain."""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
LIBRARY = "libFirePackArrowC.so"


def toolchain_libraries(library: Path, toolchain: Path) -> list:
    """The shared libraries `library` loads from the toolchain (ldd, told where the runtime is), which the wheel
    must carry."""
    runtime = toolchain / "lib" / "swift" / "linux"
    environment = dict(os.environ, LD_LIBRARY_PATH=str(runtime))
    output = subprocess.run(["ldd", str(library)], check=True, capture_output=True, text=True, env=environment).stdout
    found = []
    for line in output.splitlines():
        parts = line.split("=>")
        if len(parts) == 2 and parts[1].strip().startswith("/"):
            path = Path(parts[1].split("(")[0].strip())
            if toolchain in path.parents:
                found.append(path)
    return found


class BuildNative(build_py):
    def run(self):
        prebuilt = os.environ.get("FIREPACK_NATIVE_LIB")
        if prebuilt:
            library = Path(prebuilt)
        else:
            swift = shutil.which("swift")
            if swift is None:
                raise SystemExit("building firepack needs the Swift toolchain (swift on PATH): see the repository README")
            # The library finds its bundled runtime beside itself ($ORIGIN), never in the toolchain.
            subprocess.check_call([swift, "build", "-c", "release", "--product", "FirePackArrowC",
                                   "--package-path", str(REPOSITORY),
                                   "-Xswiftc", "-no-toolchain-stdlib-rpath", "-Xlinker", "-rpath=$ORIGIN"])
            binaries = subprocess.check_output([swift, "build", "-c", "release", "--package-path", str(REPOSITORY),
                                                "--show-bin-path"], text=True).strip()
            library = Path(binaries) / LIBRARY
        toolchain = Path(shutil.which("swift") or "/opt/swift/usr/bin/swift").resolve().parent.parent
        target = Path(self.build_lib) / "firepack" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(library, target / LIBRARY)
        for dependency in toolchain_libraries(library, toolchain):
            shutil.copy2(dependency, target / dependency.name)
        super().run()


try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70
    from wheel.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):
    """Tagged py3-none-<platform>: the native library is loaded with ctypes, so any CPython 3 can use it, but only
    on this platform."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


class BinaryDistribution(Distribution):
    """A platform wheel (it carries a native library), not a pure-Python one."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildNative, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution)
