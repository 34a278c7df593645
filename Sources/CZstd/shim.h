// zstd (Debian libzstd-dev): the zstd codec of version-3 stream blocks (Docs/FORMAT.md §8).
#include <zstd.h>
