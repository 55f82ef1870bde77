/* Documents as one line of text and back; see results/sb_cluster_pack.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "commands/cluster/sb_cluster_pack.h"
#include "results/sb_hdrlog.h"

char *sb_cluster_pack(const json_t *doc)
{
  char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (text == NULL)
    return NULL;
  size_t len = strlen(text);
  char *out = NULL;
  uLongf zlen = compressBound((uLong) len);
  uint8_t *packed = len <= SB_DOC_PACK_MAX ? malloc(4 + zlen) : NULL;
  if (packed && compress2(packed + 4, &zlen, (const Bytef *) text, (uLong) len,
                          Z_DEFAULT_COMPRESSION) == Z_OK)
  {
    packed[0] = (uint8_t) (len >> 24);
    packed[1] = (uint8_t) (len >> 16);
    packed[2] = (uint8_t) (len >> 8);
    packed[3] = (uint8_t) len;
    out = sb_base64(packed, 4 + zlen);
  }
  free(packed);
  free(text);
  return out;
}

json_t *sb_cluster_unpack(const char *text, char *err, size_t errlen)
{
  size_t n = 0;
  uint8_t *packed = sb_unbase64(text, &n);
  if (packed == NULL || n < 5)
  {
    free(packed);
    snprintf(err, errlen, "the document is not base64 text");
    return NULL;
  }
  uLongf len = (uLongf) packed[0] << 24 | (uLongf) packed[1] << 16 |
               (uLongf) packed[2] << 8 | packed[3];
  char *json = len <= SB_DOC_PACK_MAX ? malloc(len + 1) : NULL;
  if (json == NULL)
  {
    free(packed);
    snprintf(err, errlen, "the document's length (%lu bytes) is not plausible",
             (unsigned long) len);
    return NULL;
  }
  uLongf got = len;
  int zrc = uncompress((Bytef *) json, &got, packed + 4, (uLong) (n - 4));
  free(packed);
  if (zrc != Z_OK || got != len)
  {
    free(json);
    snprintf(err, errlen, "the document does not inflate (zlib error %d)", zrc);
    return NULL;
  }
  json[len] = '\0';
  json_error_t je;
  json_t *doc = json_loads(json, 0, &je);
  free(json);
  if (!json_is_object(doc))
  {
    json_decref(doc);
    snprintf(err, errlen, "the document is not a JSON object (%s)", je.text);
    return NULL;
  }
  return doc;
}
