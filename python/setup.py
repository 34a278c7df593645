"""Builds the native core (the Swift package's FirePackArrowC product) and bundles it, with the Swift runtime
libraries it links, inside the package: the wheel runs on a Linux machine without a Swift toolchain. Where `javac`
and Spark's jars are found (PySpark in the build environment, or FIREPACK_SPARK_JARS naming a folder of them), the
Spark connector (java/) is compiled beside it as lib/firepack-spark.jar."""
import os
import shutil
import subprocess
import tempfile
import zipfile
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


def spark_jars():
    """The folder of Spark's jars to compile the connector against, or None."""
    named = os.environ.get("FIREPACK_SPARK_JARS")
    if named:
        return Path(named)
    try:
        import pyspark
    except ImportError:
        return None
    folder = Path(pyspark.__file__).resolve().parent / "jars"
    return folder if folder.is_dir() else None


def build_spark_connector(target: Path):
    """Compiles java/ into `target`/firepack-spark.jar (Java 17 bytecode, warnings as errors); without javac or
    Spark's jars it says so and builds the package without the connector, unless FIREPACK_REQUIRE_SPARK_CONNECTOR
    is set."""
    javac, jars = shutil.which("javac"), spark_jars()
    if javac is None or jars is None:
        missing = "javac (a JDK, e.g. Debian's openjdk-17-jdk-headless)" if javac is None else "Spark's jars (PySpark)"
        if os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
            raise SystemExit(f"building the Spark connector needs {missing}")
        print(f"firepack: building without the Spark connector: {missing} not found")
        return
    sources = sorted(str(path) for path in (REPOSITORY / "java" / "src" / "main" / "java").rglob("*.java"))
    with tempfile.TemporaryDirectory() as classes:
        subprocess.check_call([javac, "--release", "17", "-Xlint:all,-path", "-Werror", "-cp", str(jars / "*"),
                               "-d", classes, *sources])
        with zipfile.ZipFile(target / "firepack-spark.jar", "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: firepack setup.py\n")
            for path in sorted(Path(classes).rglob("*.class")):
                jar.write(path, path.relative_to(classes).as_posix())


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
        build_spark_connector(target)
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
