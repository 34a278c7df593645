// CRC-32 by folding with carry-less multiplication: Intel's "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction" (Gopal et al., 2009), in the bit-reflected form zlib's CRC-32 uses, with the constants that
// paper derives for its polynomial 0x04C11DB7 (as Chromium's and zlib-ng's zlib use them). Four 128-bit lanes fold
// 64 bytes per step, then one lane 16 bytes per step; a Barrett reduction ends in 32 bits. Stream records are checked
// with it: zlib's table-driven crc32_z is slower (guarded by `Stream fpks to JSON lines`).

#include "firepack_crc32.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int firepack_crc32_fold_available(void) {
    static int available = -1;
    if (available < 0) {
        unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
        // CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 19 is SSE4.1.
        available = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 1)) && (ecx & (1u << 19)) ? 1 : 0;
    }
    return available;
}

__attribute__((target("pclmul,sse4.1")))
uint32_t firepack_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length) {
    // The fold constants (x^n mod P, bit-reflected, shifted) and the Barrett pair (P and mu).
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0x0000000000, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

    // zlib's value is the complement of the running remainder.
    crc = ~crc;
    x1 = _mm_loadu_si128((const __m128i *)(bytes + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(bytes + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(bytes + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(bytes + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    bytes += 64;
    length -= 64;

    // Four lanes, 64 bytes a step.
    while (length >= 64) {
        x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
        x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
        x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
        x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *)(bytes + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128((const __m128i *)(bytes + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128((const __m128i *)(bytes + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128((const __m128i *)(bytes + 0x30)));
        bytes += 64;
        length -= 64;
    }

    // Four lanes into one.
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);

    // One lane, 16 bytes a step.
    while (length >= 16) {
        x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, _mm_loadu_si128((const __m128i *)bytes)), x5);
        bytes += 16;
        length -= 16;
    }

    // 128 bits to 64.
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, low32);
    x1 = _mm_clmulepi64_si128(x1, k5k0, 0x00);
    x1 = _mm_xor_si128(x1, x2);

    // Barrett reduction to 32 bits.
    x2 = _mm_and_si128(x1, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return ~(uint32_t)_mm_extract_epi32(x1, 1);
}

#else

int firepack_crc32_fold_available(void) { return 0; }

uint32_t firepack_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return crc;   // never called: firepack_crc32_fold_available() is 0 here
}

#endif
