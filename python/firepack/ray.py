"""FirePack as a Ray Data source: `ray.data.read_datasource(FirePackDatasource("exports/*.fpks"))`.

Each read task reads one byte range of one file (the split rule of Docs/ARROW.md: exactly the records whose sync
marker starts in the range), as Arrow tables; the schema is inferred once, before the tasks are planned, so that
every task's blocks agree."""

import pyarrow as pa
from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata

import firepack
from firepack import _native, _paths


class FirePackDatasource(Datasource):
    """The documents of `paths` (a glob, a path, or a list of them), cut into ranges of about `target_bytes`; the
    other options are `firepack.open_stream`'s."""

    def __init__(self, paths, *, target_bytes=64 * 1024 * 1024, schema=None, columns=None, sample=None,
                 on_damage="error", on_mismatch="error", max_block_expansion=None, max_key_expansion=None):
        if isinstance(paths, str):
            paths = [paths]
        # A name is itself before it is a pattern, a folder is its FirePack files, and a path that names nothing is
        # an error: the Spark data source's rule (`firepack._paths.files`).
        self.paths = [match for path in paths for match in _paths.files(path)]
        self.target_bytes = target_bytes
        self.max_block_expansion, self.max_key_expansion = max_block_expansion, max_key_expansion
        self.sampled = schema is None and sample is not None
        if schema is None:
            inferred, report = _native.infer_schema(self.paths, sample, max_block_expansion, max_key_expansion)
            # The readers take this schema as given: records inference left out fail here unless skipped.
            if on_damage != "skip":
                firepack._check_nothing_rejected(report, 'on_damage="skip"', "max_key_expansion")
            schema = firepack._check_inferred_width(inferred, columns)
        self.schema = schema
        self.columns = columns
        self.on_damage = on_damage
        self.on_mismatch = on_mismatch

    def estimate_inmemory_data_size(self):
        return None

    def get_read_tasks(self, parallelism, per_task_row_limit=None, data_context=None):
        tasks = []
        for path in self.paths:
            for offset, length in firepack.splits(path, self.target_bytes):
                tasks.append(ReadTask(self._reader(path, offset, length),
                                      BlockMetadata(num_rows=None, size_bytes=length, exec_stats=None,
                                                    input_files=(path,))))
        return tasks

    def _reader(self, path, offset, length):
        schema, columns, on_damage, on_mismatch, sampled = (self.schema, self.columns, self.on_damage,
                                                             self.on_mismatch, self.sampled)
        expansion, key_expansion = self.max_block_expansion, self.max_key_expansion

        def read():
            reader = firepack.open_stream(path, schema=schema, columns=columns, offset=offset, length=length,
                                          on_damage=on_damage, on_mismatch=on_mismatch, sampled_schema=sampled,
                                          max_block_expansion=expansion, max_key_expansion=key_expansion)
            for batch in reader:
                yield pa.Table.from_batches([batch])

        return read
