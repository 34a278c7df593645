#ifndef FIREPACK_CRC32_H
#define FIREPACK_CRC32_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU can run `firepack_crc32_fold` (x86-64 with PCLMULQDQ and SSE4.1); decided once.
int firepack_crc32_fold_available(void);

/// Continues the CRC-32 (zlib's polynomial) `crc` over `length` bytes at `bytes` with carry-less multiplication, for
/// `length` a multiple of 16 and at least 64; the same result as zlib's `crc32_z(crc, bytes, length)`. Call it only
/// when `firepack_crc32_fold_available()` returns 1.
uint32_t firepack_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length);

#endif
