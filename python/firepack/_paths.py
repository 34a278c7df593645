"""The files a path given to an engine names, one rule for the Spark data source and the Ray source."""
import glob
import os

import firepack


SUFFIXES = (".fpks", ".fpks.gz", ".fpk")


def _nested_file(folder):
    """The first FirePack file in a subfolder of `folder`, at any depth, passing over folders whose names start with
    `_` or `.` (Spark's hidden names: a writer's `_temporary`), or None."""
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith(("_", ".")))
        if root != folder:
            found = sorted(name for name in names if name.endswith(SUFFIXES))
            if found:
                return os.path.join(root, found[0])
    return None


def files(path):
    """The files `path` names: a folder's FirePack files, or a file or glob's matches. A name is itself before it is a
    pattern (`a[1].fpks` is that file when it exists, not `a1.fpks`), and a comma is part of the name, as in Spark's
    own file sources: several paths are given as a list. A path that names nothing is an error, and so is a folder
    with FirePack files in its subfolders, which would not be read (a partitioned layout, `date=…/`, keeps part of
    each document in its folder's name): they are given as a glob or as paths."""
    path = os.fspath(path)
    if os.path.isdir(path):
        nested = _nested_file(path)
        if nested is not None:
            raise firepack.FirePackError(
                f"{path} holds FirePack files in subfolders ({nested}), which reading the folder would leave out: "
                f"give them as paths or as globs (for example {os.path.join(path, '*', '*.fpks')})")
        return sorted(os.path.join(path, name) for name in os.listdir(path) if name.endswith(SUFFIXES))
    if os.path.isfile(path):
        return [path]
    matched = sorted(glob.glob(path))
    if not matched:
        raise firepack.FirePackError(f"no file matches {path!r}")
    return matched
