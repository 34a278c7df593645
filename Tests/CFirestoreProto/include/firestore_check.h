// A small C surface over the protobuf-c generated code, for FirePack's cross-check tests.
#ifndef FIRESTORE_CHECK_H
#define FIRESTORE_CHECK_H

#include <stddef.h>
#include <stdint.h>

/// Unpacks a Value (or Document) message with protobuf-c and writes a canonical description of every field to
/// *out (NUL-terminated, free with fpc_free). Returns 0, or -1 when protobuf-c rejects the bytes.
int fpc_describe_value(const uint8_t *data, size_t length, char **out);
int fpc_describe_document(const uint8_t *data, size_t length, char **out);

/// Unpacks with protobuf-c and packs again with protobuf-c: protobuf-c's own encoding of the same message.
int fpc_repack_value(const uint8_t *data, size_t length, uint8_t **out, size_t *out_length);
int fpc_repack_document(const uint8_t *data, size_t length, uint8_t **out, size_t *out_length);

void fpc_free(void *pointer);

#endif
