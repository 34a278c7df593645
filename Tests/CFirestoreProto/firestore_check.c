// Describes and repacks Firestore messages with protobuf-c, an implementation independent of FirePack.
#include "firestore_check.h"
#include "firestore_check.pb-c.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} Text;

static void append(Text *text, const char *bytes, size_t count) {
    if (text->length + count + 1 > text->capacity) {
        size_t capacity = text->capacity ? text->capacity : 256;
        while (capacity < text->length + count + 1) capacity *= 2;
        text->data = realloc(text->data, capacity);
        text->capacity = capacity;
    }
    memcpy(text->data + text->length, bytes, count);
    text->length += count;
    text->data[text->length] = 0;
}

static void appendf(Text *text, const char *format, ...) {
    char buffer[128];
    va_list arguments;
    va_start(arguments, format);
    int count = vsnprintf(buffer, sizeof buffer, format, arguments);
    va_end(arguments);
    append(text, buffer, (size_t)count);
}

static void append_hex(Text *text, const uint8_t *bytes, size_t count) {
    static const char digits[] = "0123456789abcdef";
    for (size_t index = 0; index < count; index++) {
        char pair[2] = { digits[bytes[index] >> 4], digits[bytes[index] & 15] };
        append(text, pair, 2);
    }
}

static uint64_t bits(double value) {
    uint64_t result;
    memcpy(&result, &value, sizeof result);
    return result;
}

static void describe_timestamp(Text *text, const Firepack__Check__Timestamp *timestamp) {
    appendf(text, "ts(%" PRId64 ",%" PRId32 ")", timestamp->seconds, timestamp->nanos);
}

static void describe_value(Text *text, const Firepack__Check__Value *value);

static void describe_entries(Text *text, size_t count, Firepack__Check__MapValue__FieldsEntry **entries) {
    append(text, "map{", 4);
    for (size_t index = 0; index < count; index++) {
        append_hex(text, (const uint8_t *)entries[index]->key, strlen(entries[index]->key));
        append(text, "=", 1);
        if (entries[index]->value) describe_value(text, entries[index]->value); else append(text, "absent", 6);
        append(text, ";", 1);
    }
    append(text, "}", 1);
}

static void describe_value(Text *text, const Firepack__Check__Value *value) {
    switch (value->value_type_case) {
    case FIREPACK__CHECK__VALUE__VALUE_TYPE__NOT_SET: append(text, "unset", 5); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_NULL_VALUE: append(text, "null", 4); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_BOOLEAN_VALUE: appendf(text, "bool(%d)", value->boolean_value ? 1 : 0); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_INTEGER_VALUE: appendf(text, "int(%" PRId64 ")", value->integer_value); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_DOUBLE_VALUE: appendf(text, "double(%016" PRIx64 ")", bits(value->double_value)); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_TIMESTAMP_VALUE: describe_timestamp(text, value->timestamp_value); break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_STRING_VALUE:
        append(text, "str(", 4);
        append_hex(text, (const uint8_t *)value->string_value, strlen(value->string_value));
        append(text, ")", 1);
        break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_BYTES_VALUE:
        append(text, "bytes(", 6);
        append_hex(text, value->bytes_value.data, value->bytes_value.len);
        append(text, ")", 1);
        break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_REFERENCE_VALUE:
        append(text, "ref(", 4);
        append_hex(text, (const uint8_t *)value->reference_value, strlen(value->reference_value));
        append(text, ")", 1);
        break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_GEO_POINT_VALUE:
        appendf(text, "geo(%016" PRIx64 ",%016" PRIx64 ")", bits(value->geo_point_value->latitude), bits(value->geo_point_value->longitude));
        break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_ARRAY_VALUE:
        append(text, "array[", 6);
        for (size_t index = 0; index < value->array_value->n_values; index++) {
            if (index > 0) append(text, ",", 1);
            describe_value(text, value->array_value->values[index]);
        }
        append(text, "]", 1);
        break;
    case FIREPACK__CHECK__VALUE__VALUE_TYPE_MAP_VALUE:
        describe_entries(text, value->map_value->n_fields, value->map_value->fields);
        break;
    default: appendf(text, "case(%d)", (int)value->value_type_case); break;
    }
}

int fpc_describe_value(const uint8_t *data, size_t length, char **out) {
    Firepack__Check__Value *value = firepack__check__value__unpack(NULL, length, data);
    if (!value) return -1;
    Text text = {0};
    describe_value(&text, value);
    firepack__check__value__free_unpacked(value, NULL);
    *out = text.data ? text.data : calloc(1, 1);
    return 0;
}

int fpc_describe_document(const uint8_t *data, size_t length, char **out) {
    Firepack__Check__Document *document = firepack__check__document__unpack(NULL, length, data);
    if (!document) return -1;
    Text text = {0};
    append(&text, "doc(", 4);
    append_hex(&text, (const uint8_t *)document->name, strlen(document->name));
    append(&text, ")", 1);
    describe_entries(&text, document->n_fields, (Firepack__Check__MapValue__FieldsEntry **)document->fields);
    if (document->create_time) { append(&text, "create:", 7); describe_timestamp(&text, document->create_time); }
    if (document->update_time) { append(&text, "update:", 7); describe_timestamp(&text, document->update_time); }
    firepack__check__document__free_unpacked(document, NULL);
    *out = text.data;
    return 0;
}

int fpc_repack_value(const uint8_t *data, size_t length, uint8_t **out, size_t *out_length) {
    Firepack__Check__Value *value = firepack__check__value__unpack(NULL, length, data);
    if (!value) return -1;
    *out_length = firepack__check__value__get_packed_size(value);
    *out = malloc(*out_length ? *out_length : 1);
    firepack__check__value__pack(value, *out);
    firepack__check__value__free_unpacked(value, NULL);
    return 0;
}

int fpc_repack_document(const uint8_t *data, size_t length, uint8_t **out, size_t *out_length) {
    Firepack__Check__Document *document = firepack__check__document__unpack(NULL, length, data);
    if (!document) return -1;
    *out_length = firepack__check__document__get_packed_size(document);
    *out = malloc(*out_length ? *out_length : 1);
    firepack__check__document__pack(document, *out);
    firepack__check__document__free_unpacked(document, NULL);
    return 0;
}

void fpc_free(void *pointer) { free(pointer); }
