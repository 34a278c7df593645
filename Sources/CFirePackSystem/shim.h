// The C library functions FirePack calls (read/write/open/fsync/rename, strtod, memchr, strerror), from the
// platform's own headers: Swift code imports this module instead of naming Glibc or Darwin, and needs no more of
// Foundation than FoundationEssentials, which does not re-export the C library.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// The calling thread's errno (a macro, which Swift cannot import).
static inline int firepack_errno(void) { return errno; }

/// open(2) with a mode (variadic in C, which Swift cannot call).
static inline int firepack_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
