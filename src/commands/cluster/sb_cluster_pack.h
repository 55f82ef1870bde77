/*
 * A JSON document as one line of text and back: compact JSON, zlib,
 * base64. A cluster child sends its whole --results document to the
 * coordinator this way (docs/cluster.md "The stream"), which merges the
 * processes' documents exactly as `bmk report --merge` does.
 *
 * The packed bytes are a 4-byte big-endian length of the JSON text, then
 * its zlib stream. Everything here is thread-safe (no shared state).
 */
#ifndef SB_DOC_PACK_H
#define SB_DOC_PACK_H

#include <stddef.h>

#include <jansson.h>

/* Largest JSON text packed or unpacked (a document with a row per second
   of a day and its histograms stays far below). */
#define SB_DOC_PACK_MAX (256u << 20)

/* `doc` as one line of base64 text (malloc'd, NUL-terminated), or NULL
   when it cannot be encoded (OOM, over SB_DOC_PACK_MAX). */
char *sb_cluster_pack(const json_t *doc);

/* The document packed in `text` (a new reference), or NULL with the
   reason in err (`errlen` bytes): not base64, a bad length, inflate
   failure, not a JSON object. */
json_t *sb_cluster_unpack(const char *text, char *err, size_t errlen);

#endif
