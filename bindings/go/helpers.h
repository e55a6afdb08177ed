// Prototypes of helpers.c.
#ifndef LANESUM_GO_HELPERS_H
#define LANESUM_GO_HELPERS_H
#include "lanesum.h"

LanesumStatus ls_message(LanesumStatus status, char **msg);
LanesumStatus ls_algorithm(const char *name, LanesumAlgorithm *out, size_t *digest_len,
    size_t *block_len, char **msg);
LanesumStatus ls_update2(LanesumHasher h, const uint8_t *a, size_t alen, const uint8_t *b,
    size_t blen);
LanesumStatus ls_peek(LanesumHasher h, const uint8_t *tail, size_t tlen, uint8_t *out,
    size_t cap);
LanesumStatus ls_finish(LanesumHasher h, const uint8_t *tail, size_t tlen, uint8_t *out,
    size_t cap);
LanesumStatus ls_engine_hasher(uint64_t engine, const LanesumAlgorithm *algs, size_t count,
    int multi, LanesumHasher *out, char **msg);
LanesumStatus ls_hash_many(LanesumAlgorithm alg, const LanesumSlice *msgs, size_t count,
    uint8_t *out, size_t cap, int32_t parallel, char **msg);

LanesumStatus ls_hash_each(const LanesumAlgorithm *algs, size_t n, const uint8_t *data,
    size_t len, uint8_t *out, size_t cap);
LanesumStatus ls_update_many(const LanesumHasher *hashers, const LanesumSlice *data,
    size_t count, char **msg);
LanesumStatus ls_md_state(LanesumAlgorithm alg, LanesumHasher h, const uint8_t *tail,
    size_t tlen, LanesumMdState *out, char **msg);
LanesumStatus ls_from_md_state(LanesumAlgorithm alg, const LanesumMdState *state,
    LanesumHasher *out, char **msg);

#endif
