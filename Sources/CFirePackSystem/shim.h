// The C library functions FirePack calls (read/write/open/fsync/rename, strtod, memchr, strerror), from the
// platform's own headers: Swift code imports this module instead of naming Glibc or Darwin, and needs no more of
// Foundation than FoundationEssentials, which does not re-export the C library.
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/// The calling thread's errno (a macro, which Swift cannot import).
static inline int firepack_errno(void) { return errno; }

/// Whether `descriptor` is open (fcntl(2) F_GETFD; variadic in C, which Swift cannot call).
static inline int firepack_is_open(int descriptor) { return fcntl(descriptor, F_GETFD) >= 0; }

/// Makes `descriptor` non-blocking and closed on exec (fcntl(2) F_SETFL and F_SETFD; variadic in C); 0, or -1 with
/// errno set.
static inline int firepack_set_nonblocking_cloexec(int descriptor) {
    int flags = fcntl(descriptor, F_GETFL);
    if (flags < 0 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) < 0) return -1;
    return fcntl(descriptor, F_SETFD, FD_CLOEXEC);
}

/// open(2) with a mode (variadic in C, which Swift cannot call).
static inline int firepack_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }

/// Starts writing `count` bytes of `descriptor` at `offset` to disk without waiting for them, and lets the system drop
/// them from its cache once they are written: posix_fadvise(POSIX_FADV_DONTNEED) where the system has it (Linux starts
/// writeback for the range); nothing elsewhere.
static inline void firepack_start_writeback(int descriptor, off_t offset, off_t count) {
#if defined(POSIX_FADV_DONTNEED)
    (void)posix_fadvise(descriptor, offset, count, POSIX_FADV_DONTNEED);
#else
    (void)descriptor; (void)offset; (void)count;
#endif
}
