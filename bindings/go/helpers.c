// C helpers of the Go package: each is one cgo call where the Go side would otherwise
// make several (a call costs tens of nanoseconds), and reads the error message on the
// thread that failed (a goroutine may move to another thread between two calls).
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

// On failure, *msg is a copy of the thread's message (malloc'd: the caller frees it), or
// NULL if there was no memory for one.
LanesumStatus ls_message(LanesumStatus status, char **msg) {
	if (status != LANESUM_OK) *msg = strdup(lanesum_last_error());
	return status;
}

LanesumStatus ls_algorithm(const char *name, LanesumAlgorithm *out, size_t *digest_len,
		size_t *block_len, char **msg) {
	LanesumStatus s = lanesum_algorithm(name, out);
	if (s == LANESUM_OK) s = lanesum_algorithm_digest_len(*out, digest_len);
	if (s == LANESUM_OK) s = lanesum_algorithm_block_len(*out, block_len);
	return ls_message(s, msg);
}

// Two pieces (gathered writes, then a new one) in one call.
LanesumStatus ls_update2(LanesumHasher h, const uint8_t *a, size_t alen, const uint8_t *b,
		size_t blen) {
	LanesumStatus s = lanesum_hasher_update(h, a, alen);
	if (s == LANESUM_OK) s = lanesum_hasher_update(h, b, blen);
	return s;
}

// The digest of what h absorbed plus tail, leaving h as it was (a plain hasher).
LanesumStatus ls_peek(LanesumHasher h, const uint8_t *tail, size_t tlen, uint8_t *out,
		size_t cap) {
	LanesumHasher c;
	LanesumStatus s = lanesum_hasher_copy(h, &c);
	if (s != LANESUM_OK) return s;
	s = lanesum_hasher_update(c, tail, tlen);
	if (s == LANESUM_OK) s = lanesum_hasher_finalize(c, out, cap, NULL);
	lanesum_hasher_free(c);
	return s;
}

// tail, then the digests; finalizes h.
LanesumStatus ls_finish(LanesumHasher h, const uint8_t *tail, size_t tlen, uint8_t *out,
		size_t cap) {
	LanesumStatus s = lanesum_hasher_update(h, tail, tlen);
	if (s == LANESUM_OK) s = lanesum_hasher_finalize(h, out, cap, NULL);
	return s;
}

// An engine hasher (engine 0: the global one) or a multi hasher (count > 0).
LanesumStatus ls_engine_hasher(uint64_t engine, const LanesumAlgorithm *algs, size_t count,
		int multi, LanesumHasher *out, char **msg) {
	LanesumEngine e = {engine};
	if (engine == 0) e = lanesum_engine_global();
	LanesumStatus s = multi ? lanesum_multi_hasher_new(e, algs, count, out)
	                  : lanesum_lane_hasher_new(e, algs[0], out);
	return ls_message(s, msg);
}

LanesumStatus ls_hash_many(LanesumAlgorithm alg, const LanesumSlice *msgs, size_t count,
		uint8_t *out, size_t cap, int32_t parallel, char **msg) {
	return ls_message(lanesum_hash_many(alg, msgs, count, out, cap, parallel), msg);
}

// The digests of one short message under each of n algorithms, one after the other.
LanesumStatus ls_hash_each(const LanesumAlgorithm *algs, size_t n, const uint8_t *data,
		size_t len, uint8_t *out, size_t cap) {
	for (size_t i = 0; i < n; i++) {
		size_t w = 0;
		LanesumStatus s = lanesum_hash(algs[i], data, len, out, cap, &w);
		if (s != LANESUM_OK) return s;
		if (w > 0) { // out is NULL when every digest is empty (blake3-0)
			out += w;
			cap -= w;
		}
	}
	return LANESUM_OK;
}

// lanesum_hasher_update_many with its message.
LanesumStatus ls_update_many(const LanesumHasher *hashers, const LanesumSlice *data,
		size_t count, char **msg) {
	return ls_message(lanesum_hasher_update_many(hashers, data, count), msg);
}

// Where the plain hasher h of alg stands (h 0: the empty message) once tail is absorbed
// too, h itself unchanged: a copy (or a new hasher) takes the tail and is saved.
LanesumStatus ls_md_state(LanesumAlgorithm alg, LanesumHasher h, const uint8_t *tail,
		size_t tlen, LanesumMdState *out, char **msg) {
	LanesumHasher c;
	LanesumStatus s = h.id ? lanesum_hasher_copy(h, &c) : lanesum_hasher_new(alg, &c);
	if (s != LANESUM_OK) return ls_message(s, msg);
	s = lanesum_hasher_update(c, tail, tlen);
	if (s == LANESUM_OK) s = lanesum_hasher_md_state(c, out);
	ls_message(s, msg);
	lanesum_hasher_free(c);
	return s;
}

// A new plain hasher of alg going on from *state.
LanesumStatus ls_from_md_state(LanesumAlgorithm alg, const LanesumMdState *state,
		LanesumHasher *out, char **msg) {
	return ls_message(lanesum_hasher_from_md_state(alg, state, out), msg);
}
