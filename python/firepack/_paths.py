"""The files a path given to an engine names, one rule for the Spark data source and the Ray source."""
import glob
import os

import firepack


def files(path):
    """The files `path` names: a folder's FirePack files, or a file or glob's matches. A name is itself before it is a
    pattern (`a[1].fpks` is that file when it exists, not `a1.fpks`), and a comma is part of the name, as in Spark's
    own file sources: several paths are given as a list. A path that names nothing is an error."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return sorted(os.path.join(path, name) for name in os.listdir(path)
                      if name.endswith((".fpks", ".fpks.gz", ".fpk")))
    if os.path.isfile(path):
        return [path]
    matched = sorted(glob.glob(path))
    if not matched:
        raise firepack.FirePackError(f"no file matches {path!r}")
    return matched
