/* libFuzzer harness of lanesum's C ABI: the fuzz input is a little program of API calls
 * on a table of hasher slots and engines (create by name, good and bad; update, copy,
 * finalize, reset, free, free twice, use after free, null and garbage handles, multi
 * hashers, update_many, hash_many, md_state save / corrupt / resume). Every call's status
 * is checked against what include/lanesum.h documents, and every digest against
 * lanesum_hash of the whole message and against OpenSSL (EVP one-shots; for resumed MD5,
 * SHA-1 and SHA-2 states, OpenSSL's low-level contexts set from the saved state).
 *
 *   make -C crates/lanesum-ffi/tests/c fuzz        # build/fuzz_abi (clang)
 *   build/fuzz_abi -max_total_time=600 -jobs=1 corpus/
 */
#define _GNU_SOURCE
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanesum.h"

#define NSLOT 6
#define NENG 3
#define NSTALE 16
#define MAXMSG (1u << 20)
#define MAXALGS 6

static void die(const char *what, int line) {
    fprintf(stderr, "fuzz_abi:%d: %s (last error: %s)\n", line, what, lanesum_last_error());
    abort();
}
#define FAIL(what) die(what, __LINE__)
#define EXPECT(call, want)                                                         \
    do {                                                                           \
        LanesumStatus got_ = (call);                                               \
        if (got_ != (want)) {                                                      \
            fprintf(stderr, "fuzz_abi:%d: %s = %d, want %d\n", __LINE__, #call,    \
                    (int)got_, (int)(want));                                       \
            die("unexpected status", __LINE__);                                    \
        }                                                                          \
    } while (0)

/* ---- the fuzz input ---- */
static const uint8_t *in;
static size_t in_len;
static uint8_t byte(void) {
    if (!in_len) return 0;
    in_len--;
    return *in++;
}
static uint64_t u64(void) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)byte() << (8 * i);
    return v;
}
/* n bytes of data: the input's while it lasts, then a pattern (restarted for every input,
 * so that a saved crash input replays alone). */
static uint8_t *data_buf;
static uint32_t pattern = 1;
static const uint8_t *take(size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (in_len) {
            data_buf[i] = byte();
        } else {
            pattern = pattern * 1103515245u + 12345u;
            data_buf[i] = (uint8_t)(pattern >> 16);
        }
    }
    return data_buf;
}
static size_t length(void) {
    uint8_t b = byte();
    if (b < 0xc0) return b;
    static const size_t big[8] = {63, 64, 65, 127, 128, 129, 4096, 65537};
    return big[b & 7] + (size_t)((b - 0xc0) >> 3) * 1031;
}

/* ---- algorithms ---- */
static const char *NAMES[] = {
    "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256",
    "SHA-512/256", "SHA256", "sm3", "blake2b", "blake2b-256", "blake2b-8", "blake2s",
    "blake2s-128", "blake3", "blake3-0", "blake3-8", "blake3-4096", "md5p8", "blake2bp",
    "blake2sp-256", "btv2", "crc32", "crc32c", "crc64nvme", "crc", "bsd", "sysv", "xxh64",
    "xxh3", "xxh128", "sha3-224", "sha3-256", "sha3-384", "sha3-512", "sha3", "shake128",
    "shake256", "shake128-8", "shake256-4000", "b3",
    /* not algorithms */
    "", "md6", "sha3-100", "blake2b-0", "blake2b-520", "blake2b-7", "shake128-0",
    "blake3-9999999", "blake3--8", "sha256 ", "sha\xff", "blake2s-264",
};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

typedef struct {
    int ok;
    LanesumAlgorithm a;
    size_t dlen, block;
    const char *canon;
} Alg;

/* A name (from the table, or a fuzz string) looked up; ok 0 for unknown names. */
static Alg lookup(void) {
    uint8_t b = byte();
    char name[48];
    const char *n;
    if (b == 0xff) {
        size_t l = byte() % 40;
        for (size_t i = 0; i < l; i++) name[i] = (char)byte();
        name[l] = 0;
        n = name;
    } else {
        n = NAMES[b % NNAMES];
    }
    Alg r = {0};
    LanesumStatus s = lanesum_algorithm(n, &r.a);
    if (s == LANESUM_OK) {
        if (r.a.id == 0) FAIL("lanesum_algorithm gave the id 0");
        EXPECT(lanesum_algorithm_digest_len(r.a, &r.dlen), LANESUM_OK);
        EXPECT(lanesum_algorithm_block_len(r.a, &r.block), LANESUM_OK);
        r.canon = lanesum_algorithm_name(r.a);
        if (!r.canon) FAIL("no name for an algorithm handed out");
        r.ok = 1;
    } else if (s != LANESUM_ERR_ALGORITHM && s != LANESUM_ERR_ARGUMENT) {
        FAIL("lanesum_algorithm: neither OK nor ERR_ALGORITHM");
    } else if (b != 0xff && b % NNAMES < 43) {
        fprintf(stderr, "name %s\n", n);
        FAIL("a known name was refused");
    } else if (b != 0xff && b % NNAMES >= 43) {
        /* Not UTF-8 is an argument error (LANESUM_ERR_ARGUMENT's doc). */
        if (s != (strcmp(n, "sha\xff") ? LANESUM_ERR_ALGORITHM : LANESUM_ERR_ARGUMENT))
            FAIL("an unknown name: not ERR_ALGORITHM");
    }
    return r;
}

/* Saved states: MD5, SHA-1, SHA-2, SM3. */
static int md_words(const char *c) {
    if (!strcmp(c, "md5")) return 4;
    if (!strcmp(c, "sha1")) return 5;
    if (!strncmp(c, "sha2", 4) || !strncmp(c, "sha384", 6) || !strncmp(c, "sha512", 6) ||
        !strcmp(c, "sm3"))
        return 8;
    return 0;
}
static int wide(const char *c) { return !strcmp(c, "sha384") || !strncmp(c, "sha512", 6); }

/* OpenSSL's digest of msg, or 0 if it has none of this algorithm and length. */
static int ossl(const Alg *a, const uint8_t *m, size_t n, uint8_t *out) {
    const char *c = a->canon;
    const EVP_MD *md = NULL;
    int xof = 0;
    if (!strcmp(c, "md5")) md = EVP_md5();
    else if (!strcmp(c, "sha1")) md = EVP_sha1();
    else if (!strcmp(c, "sha224")) md = EVP_sha224();
    else if (!strcmp(c, "sha256")) md = EVP_sha256();
    else if (!strcmp(c, "sha384")) md = EVP_sha384();
    else if (!strcmp(c, "sha512")) md = EVP_sha512();
    else if (!strcmp(c, "sha512-224")) md = EVP_sha512_224();
    else if (!strcmp(c, "sha512-256")) md = EVP_sha512_256();
    else if (!strcmp(c, "sha3-224")) md = EVP_sha3_224();
    else if (!strcmp(c, "sha3-256")) md = EVP_sha3_256();
    else if (!strcmp(c, "sha3-384")) md = EVP_sha3_384();
    else if (!strcmp(c, "sha3-512")) md = EVP_sha3_512();
    else if (!strcmp(c, "sm3")) md = EVP_sm3();
    else if (!strcmp(c, "blake2b") && a->dlen == 64) md = EVP_blake2b512();
    else if (!strcmp(c, "blake2s") && a->dlen == 32) md = EVP_blake2s256();
    else if (!strncmp(c, "shake128", 8)) md = EVP_shake128(), xof = 1;
    else if (!strncmp(c, "shake256", 8)) md = EVP_shake256(), xof = 1;
    if (!md) return 0;
    if (xof && a->dlen == 0) return 1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, m, n);
    unsigned int l = 0;
    ok = ok && (xof ? EVP_DigestFinalXOF(ctx, out, a->dlen) : EVP_DigestFinal_ex(ctx, out, &l));
    EVP_MD_CTX_free(ctx);
    if (!ok) return 0; /* not in this OpenSSL's providers */
    if (!xof && l != a->dlen) FAIL("OpenSSL digest length differs");
    return 1;
}

/* Low-level OpenSSL contexts: the shadow of a plain MD5/SHA-1/SHA-2 hasher, so that a
 * resumed (possibly fuzz-corrupted) state has a reference too. */
typedef struct {
    int kind; /* 0 none, 1 md5, 2 sha1, 3 sha256 family, 4 sha512 family */
    union {
        MD5_CTX md5;
        SHA_CTX sha1;
        SHA256_CTX s256;
        SHA512_CTX s512;
    } u;
} Shadow;

static const uint64_t IV512_224[8] = {
    0x8C3D37C819544DA2ull, 0x73E1996689DCD4D6ull, 0x1DFAB7AE32FF9C82ull, 0x679DD514582F9FCFull,
    0x0F6D2B697BD44DA8ull, 0x77E36F7304C48942ull, 0x3F9D85A86A1D36C8ull, 0x1112E6AD91D692A1ull};
static const uint64_t IV512_256[8] = {
    0x22312194FC2BF72Cull, 0x9F555FA3C84C64C2ull, 0x2393B86B6F53B151ull, 0x963877195940EABDull,
    0x96283EE2A88EFFE3ull, 0xBE5E1E2553863992ull, 0x2B0199FC2C85B8AAull, 0x0EB72DDC81C52CA2ull};

static void shadow_init(Shadow *s, const Alg *a) {
    const char *c = a->canon;
    memset(s, 0, sizeof *s);
    if (!strcmp(c, "md5")) s->kind = 1, MD5_Init(&s->u.md5);
    else if (!strcmp(c, "sha1")) s->kind = 2, SHA1_Init(&s->u.sha1);
    else if (!strcmp(c, "sha224")) s->kind = 3, SHA224_Init(&s->u.s256);
    else if (!strcmp(c, "sha256")) s->kind = 3, SHA256_Init(&s->u.s256);
    else if (!strcmp(c, "sha384")) s->kind = 4, SHA384_Init(&s->u.s512);
    else if (!strcmp(c, "sha512")) s->kind = 4, SHA512_Init(&s->u.s512);
    else if (!strcmp(c, "sha512-224") || !strcmp(c, "sha512-256")) {
        s->kind = 4;
        SHA512_Init(&s->u.s512);
        memcpy(s->u.s512.h, c[7] == '2' && c[8] == '2' ? IV512_224 : IV512_256, 64);
        s->u.s512.md_len = (unsigned)a->dlen;
    }
}

/* A shadow set from a saved state (its shape already checked). */
static void shadow_from(Shadow *s, const Alg *a, const LanesumMdState *st) {
    shadow_init(s, a);
    uint64_t t = st->total;
    switch (s->kind) {
    case 1:
        s->u.md5.A = (uint32_t)st->words[0], s->u.md5.B = (uint32_t)st->words[1];
        s->u.md5.C = (uint32_t)st->words[2], s->u.md5.D = (uint32_t)st->words[3];
        s->u.md5.Nl = (uint32_t)(t << 3), s->u.md5.Nh = (uint32_t)(t >> 29);
        memcpy(s->u.md5.data, st->pending, st->npending), s->u.md5.num = (unsigned)st->npending;
        break;
    case 2:
        s->u.sha1.h0 = (uint32_t)st->words[0], s->u.sha1.h1 = (uint32_t)st->words[1];
        s->u.sha1.h2 = (uint32_t)st->words[2], s->u.sha1.h3 = (uint32_t)st->words[3];
        s->u.sha1.h4 = (uint32_t)st->words[4];
        s->u.sha1.Nl = (uint32_t)(t << 3), s->u.sha1.Nh = (uint32_t)(t >> 29);
        memcpy(s->u.sha1.data, st->pending, st->npending), s->u.sha1.num = (unsigned)st->npending;
        break;
    case 3:
        for (int i = 0; i < 8; i++) s->u.s256.h[i] = (uint32_t)st->words[i];
        s->u.s256.Nl = (uint32_t)(t << 3), s->u.s256.Nh = (uint32_t)(t >> 29);
        memcpy(s->u.s256.data, st->pending, st->npending), s->u.s256.num = (unsigned)st->npending;
        break;
    case 4:
        for (int i = 0; i < 8; i++) s->u.s512.h[i] = st->words[i];
        /* The length field as Go's and lanesum's states define it: bytes mod 2^64, so
         * bits mod 2^67; Nh is what a 128-bit count of those bits holds above 64. */
        s->u.s512.Nl = t << 3, s->u.s512.Nh = t >> 61;
        memcpy(s->u.s512.u.p, st->pending, st->npending), s->u.s512.num = (unsigned)st->npending;
        break;
    }
}

static void shadow_update(Shadow *s, const uint8_t *d, size_t n) {
    switch (s->kind) {
    case 1: MD5_Update(&s->u.md5, d, n); break;
    case 2: SHA1_Update(&s->u.sha1, d, n); break;
    case 3: SHA256_Update(&s->u.s256, d, n); break;
    case 4: SHA512_Update(&s->u.s512, d, n); break;
    }
}

/* The shadow's digest (on a copy); 0 if there is none. */
static int shadow_final(const Shadow *s0, const Alg *a, uint8_t *out) {
    Shadow s = *s0;
    uint8_t full[64];
    switch (s.kind) {
    case 1: MD5_Final(out, &s.u.md5); return 1;
    case 2: SHA1_Final(out, &s.u.sha1); return 1;
    case 3:
        s.u.s256.md_len = (unsigned)a->dlen;
        SHA256_Final(full, &s.u.s256);
        memcpy(out, full, a->dlen);
        return 1;
    case 4:
        s.u.s512.md_len = a->dlen == 48 ? 48 : a->dlen == 64 ? 64 : (unsigned)a->dlen;
        SHA512_Final(full, &s.u.s512);
        memcpy(out, full, a->dlen);
        return 1;
    }
    return 0;
}

/* ---- the model ---- */
enum { NONE, LIVE, FINAL, FREED };
enum { PLAIN, LANE, MULTI };
typedef struct {
    int state, kind;
    LanesumHasher h;
    int nalg;
    Alg algs[MAXALGS];
    uint8_t *msg;
    size_t len;
    int msg_known; /* msg is everything absorbed (else only the shadow knows) */
    Shadow sh;     /* plain MD5/SHA-1/SHA-2 only */
} Slot;

static Slot slots[NSLOT];
static LanesumEngine engines[NENG]; /* 0: the global engine */
static int eng_live[NENG];
static uint64_t stale[NSTALE]; /* freed handles of either kind */
static size_t nstale;
static uint8_t *scratch, *scratch2;
static size_t checked_digests;

static size_t slot_dlen(const Slot *s) {
    size_t n = 0;
    for (int i = 0; i < s->nalg; i++) n += s->algs[i].dlen;
    return n;
}

static void remember_stale(uint64_t id) { stale[nstale++ % NSTALE] = id; }

/* The digest lanesum gave for slot s, checked against every reference there is. */
static void check_digest(const Slot *s, const uint8_t *got, size_t got_len) {
    if (got_len != slot_dlen(s)) FAIL("finalize wrote another length than digest_len");
    size_t at = 0;
    for (int i = 0; i < s->nalg; i++) {
        const Alg *a = &s->algs[i];
        uint8_t *want = scratch2;
        if (s->msg_known) {
            size_t w = 0;
            EXPECT(lanesum_hash(a->a, s->msg, s->len, want, a->dlen, &w), LANESUM_OK);
            if (w != a->dlen) FAIL("lanesum_hash length");
            if (memcmp(got + at, want, a->dlen)) {
                fprintf(stderr, "%s kind %d, %zu bytes\n", a->canon, s->kind, s->len);
                FAIL("WRONG DIGEST: streaming differs from lanesum_hash");
            }
            if (ossl(a, s->msg, s->len, want)) {
                if (memcmp(got + at, want, a->dlen)) {
                    fprintf(stderr, "%s kind %d, %zu bytes\n", a->canon, s->kind, s->len);
                    FAIL("WRONG DIGEST: differs from OpenSSL");
                }
            }
        }
        if (s->kind == PLAIN && shadow_final(&s->sh, a, want)) {
            if (memcmp(got + at, want, a->dlen)) {
                fprintf(stderr, "%s, %zu bytes, known %d\n", a->canon, s->len, s->msg_known);
                FAIL("WRONG DIGEST: differs from OpenSSL's context (resumed state)");
            }
        }
        at += a->dlen;
        checked_digests++;
    }
}

static void slot_free(Slot *s) {
    if (s->state == LIVE || s->state == FINAL) {
        EXPECT(lanesum_hasher_free(s->h), LANESUM_OK);
        remember_stale(s->h.id);
    }
    s->state = NONE;
    s->h.id = 0;
    s->len = 0;
}

/* The status a call on slot s must return if it is not live (or OK). */
static LanesumStatus unusable(const Slot *s) {
    return s->state == NONE ? LANESUM_ERR_NULL : s->state == FREED ? LANESUM_ERR_HANDLE : LANESUM_OK;
}

static void absorb(Slot *s, const uint8_t *d, size_t n) {
    memcpy(s->msg + s->len, d, n);
    s->len += n;
    if (s->kind == PLAIN) shadow_update(&s->sh, d, n);
}

static void op_new(void) {
    Slot *s = &slots[byte() % NSLOT];
    slot_free(s);
    int kind = byte() % 3;
    int bad_out = byte() == 0xee;
    Slot n = {0};
    n.kind = kind;
    n.msg = s->msg;
    n.msg_known = 1;
    n.nalg = kind == MULTI ? byte() % (MAXALGS + 1) : 1;
    int all_ok = 1;
    for (int i = 0; i < n.nalg; i++) {
        n.algs[i] = lookup();
        all_ok &= n.algs[i].ok;
    }
    if (byte() == 0xad) { /* an id never handed out */
        n.algs[0].a.id = (uint32_t)u64() | 0x10000u;
        n.algs[0].ok = 0;
        all_ok = 0;
    }
    LanesumEngine e = engines[0];
    int eng_bad = 0;
    if (kind != PLAIN) {
        uint8_t b = byte();
        int ei = b % NENG;
        e = engines[ei];
        if (ei && !eng_live[ei]) eng_bad = 1;
        if (b == 0xe0 && slots[0].h.id) e.id = slots[0].h.id, eng_bad = 1; /* a hasher */
    }
    LanesumHasher *out = bad_out ? NULL : &n.h;
    LanesumStatus st;
    switch (kind) {
    case PLAIN: st = lanesum_hasher_new(n.algs[0].a, out); break;
    case LANE: st = lanesum_lane_hasher_new(e, n.algs[0].a, out); break;
    default: {
        LanesumAlgorithm ids[MAXALGS];
        for (int i = 0; i < n.nalg; i++) ids[i] = n.algs[i].a;
        st = lanesum_multi_hasher_new(e, n.nalg ? ids : NULL, n.nalg, out);
    }
    }
    if (kind == MULTI && n.nalg == 0) {
        if (st != LANESUM_ERR_ARGUMENT && st != LANESUM_ERR_NULL) FAIL("multi hasher of nothing");
        return;
    }
    if (!all_ok) {
        if (st != LANESUM_ERR_ALGORITHM) FAIL("a bad algorithm id: not ERR_ALGORITHM");
        return;
    }
    if (eng_bad) {
        if (st != LANESUM_ERR_HANDLE && e.id) FAIL("a freed engine: not ERR_HANDLE");
        if (st == LANESUM_OK) FAIL("a bad engine accepted");
        return;
    }
    if (bad_out) {
        if (st != LANESUM_ERR_NULL) FAIL("null out: not ERR_NULL");
        return;
    }
    if (st != LANESUM_OK) FAIL("creating a hasher failed");
    if (n.h.id == 0) FAIL("a hasher got the null handle");
    n.state = LIVE;
    if (kind == PLAIN) shadow_init(&n.sh, &n.algs[0]);
    *s = n;
}

static void op_update(void) {
    Slot *s = &slots[byte() % NSLOT];
    size_t n = length();
    int null_data = byte() == 0xee;
    const uint8_t *d = take(n);
    if (s->state == LIVE && s->len + n > MAXMSG) return;
    LanesumStatus st = lanesum_hasher_update(s->h, null_data ? NULL : d, n);
    if (s->state != LIVE) {
        LanesumStatus want = s->state == FINAL ? LANESUM_ERR_STATE : unusable(s);
        if (null_data && n && st == LANESUM_ERR_NULL) return;
        if (st != want) FAIL("update of an unusable hasher: wrong status");
        return;
    }
    if (null_data && n) {
        if (st != LANESUM_ERR_NULL) FAIL("update(NULL, n > 0): not ERR_NULL");
        return;
    }
    if (st != LANESUM_OK) FAIL("update failed");
    absorb(s, d, n);
}

static void op_finalize(void) {
    Slot *s = &slots[byte() % NSLOT];
    uint8_t mode = byte() % 5;
    size_t need = s->state == LIVE || s->state == FINAL ? slot_dlen(s) : 64;
    size_t cap = need;
    uint8_t *out = scratch;
    if (mode == 1) cap = need ? need - 1 : 0;
    if (mode == 2) cap = need + 17;
    if (mode == 3) out = NULL, cap = 0;
    size_t len = 12345;
    memset(scratch, 0xa5, need + 32);
    LanesumStatus st = lanesum_hasher_finalize(s->h, out, cap, mode == 4 ? NULL : &len);
    if (s->state != LIVE) {
        LanesumStatus want = s->state == FINAL ? LANESUM_ERR_STATE : unusable(s);
        if (st == LANESUM_ERR_BUFFER && s->state == FINAL && cap < need) return;
        if (st != want) FAIL("finalize of an unusable hasher: wrong status");
        return;
    }
    if (cap < need) {
        if (st != LANESUM_ERR_BUFFER) FAIL("finalize into a small buffer: not ERR_BUFFER");
        if (mode != 4 && len != 12345) FAIL("a failed finalize wrote out_len");
        return; /* nothing finalized: the hasher goes on */
    }
    if (st != LANESUM_OK) FAIL("finalize failed");
    if (mode != 4 && len != need) FAIL("out_len is not the digest length");
    for (size_t i = need; i < cap; i++)
        if (scratch[i] != 0xa5) FAIL("finalize wrote past the digest");
    check_digest(s, scratch, need);
    s->state = FINAL;
}

static void op_reset(void) {
    Slot *s = &slots[byte() % NSLOT];
    LanesumStatus st = lanesum_hasher_reset(s->h);
    if (s->state != LIVE && s->state != FINAL) {
        if (st != unusable(s)) FAIL("reset of a freed/null hasher: wrong status");
        return;
    }
    if (st != LANESUM_OK) FAIL("reset failed");
    s->state = LIVE;
    s->len = 0;
    s->msg_known = 1;
    if (s->kind == PLAIN) shadow_init(&s->sh, &s->algs[0]);
}

static void op_copy(void) {
    int si = byte() % NSLOT, di = byte() % NSLOT;
    if (si == di) di = (di + 1) % NSLOT;
    Slot *s = &slots[si], *d = &slots[di];
    slot_free(d);
    int bad_out = byte() == 0xee;
    LanesumHasher h = {0};
    LanesumStatus st = lanesum_hasher_copy(s->h, bad_out ? NULL : &h);
    if (s->state != LIVE && s->state != FINAL) {
        if (st != unusable(s)) FAIL("copy of a freed/null hasher: wrong status");
        return;
    }
    if (s->kind != PLAIN) {
        if (st != LANESUM_ERR_UNSUPPORTED) FAIL("copy of an engine hasher: not ERR_UNSUPPORTED");
        return;
    }
    if (bad_out) {
        if (st != LANESUM_ERR_NULL) FAIL("copy to null: not ERR_NULL");
        return;
    }
    if (st != LANESUM_OK) FAIL("copy failed");
    uint8_t *m = d->msg;
    *d = *s;
    d->msg = m;
    memcpy(d->msg, s->msg, s->len);
    d->h = h;
}

static void op_free(void) {
    Slot *s = &slots[byte() % NSLOT];
    LanesumStatus st = lanesum_hasher_free(s->h);
    if (s->state == LIVE || s->state == FINAL) {
        if (st != LANESUM_OK) FAIL("free failed");
        remember_stale(s->h.id);
        s->state = FREED;
        return;
    }
    if (st != unusable(s)) FAIL("free of a freed/null hasher: wrong status");
}

static void op_digest_len(void) {
    Slot *s = &slots[byte() % NSLOT];
    size_t n = 999;
    LanesumStatus st = lanesum_hasher_digest_len(s->h, &n);
    if (s->state == LIVE || s->state == FINAL) {
        if (st != LANESUM_OK || n != slot_dlen(s)) FAIL("digest_len");
    } else if (st != unusable(s)) {
        FAIL("digest_len of a freed/null hasher: wrong status");
    }
    EXPECT(lanesum_hasher_digest_len(s->h, NULL),
           s->state == LIVE || s->state == FINAL ? LANESUM_ERR_NULL : unusable(s));
}

/* Save a hasher's state, maybe corrupt it, resume it (maybe as another algorithm). */
static void op_md_state(void) {
    Slot *s = &slots[byte() % NSLOT];
    Slot *d = &slots[byte() % NSLOT];
    LanesumMdState st;
    memset(&st, 0x5a, sizeof st);
    uint8_t mode = byte();
    LanesumStatus r = lanesum_hasher_md_state(s->h, mode == 0xee ? NULL : &st);
    int have = 0;
    if (mode == 0xee) { /* out is checked first */
        if (r != LANESUM_ERR_NULL) FAIL("md_state to null: not ERR_NULL");
    } else if (s->state != LIVE && s->state != FINAL) {
        if (r != unusable(s)) FAIL("md_state of a freed/null hasher: wrong status");
    } else if (s->kind != PLAIN || !md_words(s->algs[0].canon)) {
        if (r != LANESUM_ERR_UNSUPPORTED && !(s->kind == PLAIN && s->state == FINAL && r == LANESUM_ERR_STATE))
            FAIL("md_state of an engine/non-MD hasher: not ERR_UNSUPPORTED");
    } else if (s->state == FINAL) {
        if (r != LANESUM_ERR_STATE) FAIL("md_state of a finalized hasher: not ERR_STATE");
    } else {
        if (r != LANESUM_OK) FAIL("md_state failed");
        const Alg *a = &s->algs[0];
        if (st.nwords != (size_t)md_words(a->canon)) FAIL("md_state: nwords");
        if (st.npending != st.total % a->block || st.npending >= a->block) FAIL("md_state: npending");
        if (s->msg_known && st.total != s->len) FAIL("md_state: total");
        if (!wide(a->canon))
            for (size_t i = 0; i < st.nwords; i++)
                if (st.words[i] >> 32) FAIL("md_state: a 32-bit word too wide");
        have = 1;
    }
    if (!have) { /* a state of the fuzzer's own */
        memset(&st, 0, sizeof st);
        st.nwords = byte() % 9;
        for (int i = 0; i < 8; i++) st.words[i] = u64();
        st.total = u64();
        st.npending = byte() & 1 ? st.total % 64 : st.total % 128;
        memcpy(st.pending, take(128), 128);
    }
    int corrupted = !have;
    /* Corruptions: each a byte choosing a field and a value. */
    for (uint8_t k = byte() % 4; k; k--) {
        uint8_t f = byte();
        corrupted = 1;
        switch (f % 6) {
        case 0: st.nwords = byte() % 10; break;
        case 1: st.words[f / 6 % 8] ^= u64(); break;
        case 2: st.npending = byte(); break;
        case 3: st.total = u64(); st.npending = st.total % (f & 64 ? 128 : 64); break;
        case 4: st.pending[byte() % 128] ^= byte() | 1; break;
        case 5: st.total += byte(); st.npending = (st.npending + 1) % 128; break;
        }
    }
    Alg a = have && byte() < 200 ? s->algs[0] : lookup();
    if (!a.ok) return;
    if (a.ok && !have && byte() == 0xee) { /* null state */
        LanesumHasher h;
        EXPECT(lanesum_hasher_from_md_state(a.a, NULL, &h), LANESUM_ERR_NULL);
        return;
    }
    /* What the source knew, before d (maybe the source itself) is freed. */
    size_t src_len = s->len;
    int src_known = s->msg_known;
    const char *src_canon = s->nalg ? s->algs[0].canon : "";
    slot_free(d);
    LanesumHasher h = {0};
    r = lanesum_hasher_from_md_state(a.a, &st, &h);
    int words = md_words(a.canon);
    if (!words) {
        if (r != LANESUM_ERR_UNSUPPORTED) FAIL("from_md_state of a non-MD algorithm: not ERR_UNSUPPORTED");
        return;
    }
    int valid = st.nwords == (size_t)words && st.npending < a.block &&
                st.npending == st.total % a.block;
    if (!wide(a.canon))
        for (int i = 0; i < words && i < 8; i++)
            if (st.words[i] >> 32) valid = 0;
    if (!valid) {
        if (r != LANESUM_ERR_ARGUMENT) {
            fprintf(stderr, "%s nwords %zu npending %zu total %llu\n", a.canon, st.nwords,
                    st.npending, (unsigned long long)st.total);
            FAIL("from_md_state of a misshapen state: not ERR_ARGUMENT");
        }
        return;
    }
    if (r != LANESUM_OK) {
        fprintf(stderr, "%s nwords %zu npending %zu total %llu\n", a.canon, st.nwords,
                st.npending, (unsigned long long)st.total);
        FAIL("from_md_state of a well-shaped state failed");
    }
    Slot n = {0};
    n.state = LIVE;
    n.kind = PLAIN;
    n.h = h;
    n.nalg = 1;
    n.algs[0] = a;
    n.msg = d->msg;
    int same = have && !corrupted && !strcmp(a.canon, src_canon);
    n.msg_known = same && src_known;
    if (n.msg_known) {
        if (d != s) memcpy(n.msg, s->msg, src_len);
        n.len = src_len;
    }
    shadow_from(&n.sh, &a, &st);
    if (!n.msg_known && !n.sh.kind) { /* SM3 from a state of the fuzzer's: no reference */
        EXPECT(lanesum_hasher_free(h), LANESUM_OK);
        remember_stale(h.id);
        return;
    }
    *d = n;
}

/* update_many over slots (duplicates, bad and finalized handles allowed). */
static void op_update_many(void) {
    size_t count = byte() % 8;
    LanesumHasher hs[8];
    LanesumSlice ds[8];
    int idx[8];
    int want_ok = 1, null_desc = 0;
    size_t off = 0;
    uint8_t *buf = scratch;
    for (size_t i = 0; i < count; i++) {
        uint8_t b = byte();
        idx[i] = b % NSLOT;
        hs[i] = slots[idx[i]].h;
        if (b >= 0xf0 && nstale) hs[i].id = stale[b % (nstale < NSTALE ? nstale : NSTALE)], idx[i] = -1, want_ok = 0;
        else if (slots[idx[i]].state != LIVE) want_ok = 0;
        for (size_t j = 0; j < i; j++)
            if (hs[j].id == hs[i].id) want_ok = 0;
        size_t n = length();
        memcpy(buf + off, take(n), n);
        ds[i].ptr = buf + off;
        ds[i].len = n;
        if (byte() == 0xee) {
            ds[i].ptr = NULL;
            if (n) null_desc = 1;
        }
        off += n;
        if (idx[i] >= 0 && slots[idx[i]].len + n > MAXMSG) return;
    }
    LanesumStatus st = lanesum_hasher_update_many(count ? hs : NULL, count ? ds : NULL, count);
    if (!want_ok || null_desc) {
        if (st == LANESUM_OK) FAIL("update_many with a bad handle/descriptor succeeded");
        if (st == LANESUM_ERR_PANIC) FAIL("update_many panicked");
        return; /* nothing absorbed, as documented: later digests check it */
    }
    if (st != LANESUM_OK) FAIL("update_many failed");
    for (size_t i = 0; i < count; i++) absorb(&slots[idx[i]], ds[i].ptr ? ds[i].ptr : (const uint8_t *)"", ds[i].len);
}

/* Threads writing distinct hashers at once (engine hashers share lanes): each thread
 * its own hasher's pieces, in order. */
typedef struct {
    LanesumHasher h;
    const uint8_t *d;
    size_t n, piece;
    LanesumStatus st;
} Job;

static void *job_run(void *arg) {
    Job *j = arg;
    j->st = LANESUM_OK;
    for (size_t at = 0; at < j->n && j->st == LANESUM_OK; at += j->piece) {
        size_t k = j->n - at < j->piece ? j->n - at : j->piece;
        j->st = lanesum_hasher_update(j->h, j->d + at, k);
    }
    return NULL;
}

static void op_threads(void) {
    Job jobs[NSLOT];
    pthread_t th[NSLOT];
    int who[NSLOT], nj = 0;
    size_t off = 0;
    uint8_t mask = byte();
    for (int i = 0; i < NSLOT; i++) {
        if (!(mask >> i & 1) || slots[i].state != LIVE) continue;
        size_t n = length() * (1 + byte() % 64);
        if (slots[i].len + n > MAXMSG || off + n > MAXMSG) continue;
        memcpy(scratch + off, take(n < 4096 ? n : 4096), n < 4096 ? n : 4096);
        for (size_t k = 4096; k < n; k++) scratch[off + k] = (uint8_t)(k * 131 + i);
        jobs[nj] = (Job){slots[i].h, scratch + off, n, 1 + length() * 7, LANESUM_OK};
        who[nj++] = i;
        off += n;
    }
    for (int j = 0; j < nj; j++)
        if (pthread_create(&th[j], NULL, job_run, &jobs[j])) FAIL("pthread_create");
    for (int j = 0; j < nj; j++) pthread_join(th[j], NULL);
    for (int j = 0; j < nj; j++) {
        if (jobs[j].st != LANESUM_OK) FAIL("update from a thread failed");
        absorb(&slots[who[j]], jobs[j].d, jobs[j].n);
    }
}

static void op_hash_many(void) {
    Alg a = lookup();
    size_t count = byte() % 24;
    LanesumSlice ms[24];
    size_t off = 0;
    for (size_t i = 0; i < count; i++) {
        size_t n = length();
        if (off + n > MAXMSG) n = 0;
        memcpy(scratch + off, take(n), n);
        ms[i].ptr = n || byte() & 1 ? scratch + off : NULL;
        ms[i].len = n;
        off += n;
    }
    uint8_t mode = byte();
    size_t need = a.ok ? count * a.dlen : 64;
    size_t cap = mode % 3 == 0 ? need : mode % 3 == 1 ? need + 9 : need ? need - 1 : 0;
    uint8_t *out = malloc(need + 16);
    LanesumStatus st = lanesum_hash_many(a.a, count ? ms : NULL, count, out, cap, mode >> 7);
    if (!a.ok) {
        if (st != LANESUM_ERR_ALGORITHM) FAIL("hash_many of a bad algorithm: not ERR_ALGORITHM");
    } else if (cap < need) {
        if (st != LANESUM_ERR_BUFFER) FAIL("hash_many into a small buffer: not ERR_BUFFER");
    } else {
        if (st != LANESUM_OK) FAIL("hash_many failed");
        for (size_t i = 0; i < count; i++) {
            size_t w;
            EXPECT(lanesum_hash(a.a, ms[i].ptr, ms[i].len, scratch2, a.dlen, &w), LANESUM_OK);
            if (memcmp(out + i * a.dlen, scratch2, a.dlen)) {
                fprintf(stderr, "%s message %zu of %zu, %zu bytes\n", a.canon, i, count, ms[i].len);
                FAIL("WRONG DIGEST: hash_many differs from lanesum_hash");
            }
            if (ossl(&a, ms[i].ptr, ms[i].len, scratch2) && memcmp(out + i * a.dlen, scratch2, a.dlen)) {
                fprintf(stderr, "%s message %zu of %zu, %zu bytes\n", a.canon, i, count, ms[i].len);
                FAIL("WRONG DIGEST: hash_many differs from OpenSSL");
            }
            checked_digests++;
        }
    }
    free(out);
}

static void op_oneshot(void) {
    Alg a = lookup();
    size_t n = length();
    const uint8_t *d = take(n);
    uint8_t mode = byte() % 4;
    size_t need = a.ok ? a.dlen : 64;
    size_t cap = mode == 0 ? need : mode == 1 ? need + 3 : mode == 2 ? (need ? need - 1 : 0) : 0;
    size_t w = 777;
    LanesumStatus st = lanesum_hash(a.a, d, n, mode == 3 ? NULL : scratch, cap, &w);
    if (!a.ok) {
        if (st != LANESUM_ERR_ALGORITHM) FAIL("hash of a bad algorithm: not ERR_ALGORITHM");
    } else if (cap < need) {
        if (st != LANESUM_ERR_BUFFER && !(mode == 3 && st == LANESUM_ERR_NULL))
            FAIL("hash into a small buffer: not ERR_BUFFER");
    } else {
        if (st != LANESUM_OK || w != need) FAIL("hash failed");
        if (ossl(&a, d, n, scratch2) && memcmp(scratch, scratch2, need)) {
            fprintf(stderr, "%s, %zu bytes\n", a.canon, n);
            FAIL("WRONG DIGEST: lanesum_hash differs from OpenSSL");
        }
        checked_digests++;
    }
}

static void op_engine(void) {
    uint8_t b = byte();
    int i = 1 + b % (NENG - 1);
    switch (b / 8 % 4) {
    case 0:
        if (eng_live[i]) {
            EXPECT(lanesum_engine_free(engines[i]), LANESUM_OK);
            remember_stale(engines[i].id);
        }
        EXPECT(lanesum_engine_new(&engines[i]), LANESUM_OK);
        eng_live[i] = 1;
        break;
    case 1:
        if (engines[i].id == 0) {
            EXPECT(lanesum_engine_free(engines[i]), LANESUM_ERR_NULL);
        } else if (eng_live[i]) {
            EXPECT(lanesum_engine_free(engines[i]), LANESUM_OK);
            remember_stale(engines[i].id);
            eng_live[i] = 0;
        } else {
            EXPECT(lanesum_engine_free(engines[i]), LANESUM_ERR_HANDLE);
        }
        break;
    case 2:
        if (lanesum_engine_free(lanesum_engine_global()) == LANESUM_OK) FAIL("freed the global engine");
        EXPECT(lanesum_engine_new(NULL), LANESUM_ERR_NULL);
        break;
    case 3: { /* handles of the wrong kind */
        Slot *s = &slots[b % NSLOT];
        if (s->state == LIVE || s->state == FINAL) {
            LanesumEngine e = {s->h.id};
            EXPECT(lanesum_engine_free(e), LANESUM_ERR_HANDLE);
        }
        if (eng_live[i]) {
            LanesumHasher h = {engines[i].id};
            EXPECT(lanesum_hasher_update(h, (const uint8_t *)"x", 1), LANESUM_ERR_HANDLE);
            EXPECT(lanesum_hasher_free(h), LANESUM_ERR_HANDLE);
            EXPECT(lanesum_hasher_reset(h), LANESUM_ERR_HANDLE);
        }
        LanesumHasher g = {1}; /* the global engine's id */
        EXPECT(lanesum_hasher_free(g), LANESUM_ERR_HANDLE);
        break;
    }
    }
}

static int is_live_id(uint64_t id) {
    for (int i = 0; i < NSLOT; i++)
        if ((slots[i].state == LIVE || slots[i].state == FINAL) && slots[i].h.id == id) return 1;
    for (int i = 0; i < NENG; i++)
        if ((i == 0 || eng_live[i]) && engines[i].id == id) return 1;
    return 0;
}

/* Stale and garbage handles: every call reports them. */
static void op_bad_handle(void) {
    uint8_t b = byte();
    LanesumHasher h;
    if (b & 1 && nstale) h.id = stale[b / 2 % (nstale < NSTALE ? nstale : NSTALE)];
    else h.id = u64();
    if (h.id == 0 || is_live_id(h.id)) return;
    uint8_t buf[64];
    size_t n;
    LanesumMdState st;
    LanesumHasher c;
    LanesumSlice sl = {buf, 1};
    EXPECT(lanesum_hasher_update(h, buf, 1), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_finalize(h, buf, sizeof buf, &n), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_reset(h), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_copy(h, &c), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_digest_len(h, &n), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_md_state(h, &st), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_update_many(&h, &sl, 1), LANESUM_ERR_HANDLE);
    EXPECT(lanesum_hasher_free(h), LANESUM_ERR_HANDLE);
    LanesumEngine e = {h.id};
    LanesumAlgorithm md5;
    EXPECT(lanesum_algorithm("md5", &md5), LANESUM_OK);
    if (h.id != 1) {
        EXPECT(lanesum_lane_hasher_new(e, md5, &c), LANESUM_ERR_HANDLE);
        EXPECT(lanesum_engine_free(e), LANESUM_ERR_HANDLE);
    }
}

/* Names, ids and strings: never a crash. */
static void op_misc(void) {
    LanesumAlgorithm a = {(uint32_t)u64()};
    size_t n;
    const char *name = lanesum_algorithm_name(a);
    LanesumStatus st = lanesum_algorithm_digest_len(a, &n);
    if (!name && st == LANESUM_OK) FAIL("digest_len of an id without a name");
    if (name) {
        LanesumAlgorithm b;
        EXPECT(lanesum_algorithm(name, &b), LANESUM_OK);
        if (b.id != a.id) FAIL("a canonical name looks up another id");
    }
    size_t cnt = lanesum_algorithm_names_count();
    size_t i = byte();
    if (i < cnt && !lanesum_algorithm_names_get(i)) FAIL("names_get");
    if (i >= cnt && lanesum_algorithm_names_get(i)) FAIL("names_get past the end");
    if (!lanesum_status_str((int32_t)u64())) FAIL("status_str");
    EXPECT(lanesum_algorithm(NULL, &a), LANESUM_ERR_NULL);
    if (lanesum_algorithm("md5", NULL) == LANESUM_OK) FAIL("algorithm(out NULL) succeeded");
    (void)lanesum_last_error();
}

static void reset_all(void) {
    for (int i = 0; i < NSLOT; i++) {
        slot_free(&slots[i]);
        if (!slots[i].msg) slots[i].msg = malloc(MAXMSG);
    }
    for (int i = 1; i < NENG; i++) {
        if (eng_live[i]) {
            EXPECT(lanesum_engine_free(engines[i]), LANESUM_OK);
            eng_live[i] = 0;
        }
        engines[i].id = 0;
    }
    engines[0] = lanesum_engine_global();
    nstale = 0;
}

static void stats(void) { fprintf(stderr, "fuzz_abi: %zu digests checked\n", checked_digests); }

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (!scratch) {
        if (getenv("FUZZ_ABI_STATS")) atexit(stats);
        scratch = malloc(MAXMSG + 200000);
        scratch2 = malloc(200000);
        data_buf = malloc(200000);
        if (lanesum_abi_version() != LANESUM_ABI_VERSION) FAIL("ABI version");
    }
    in = d;
    in_len = n;
    pattern = 1;
    reset_all();
    for (int ops = 0; in_len && ops < 256; ops++) {
        switch (byte() % 15) {
        case 0: op_new(); break;
        case 1: case 2: op_update(); break;
        case 3: op_finalize(); break;
        case 4: op_reset(); break;
        case 5: op_copy(); break;
        case 6: op_free(); break;
        case 7: op_digest_len(); break;
        case 8: op_md_state(); break;
        case 9: op_update_many(); break;
        case 10: op_hash_many(); break;
        case 11: op_oneshot(); break;
        case 12: op_engine(); break;
        case 13: byte() & 1 ? op_bad_handle() : op_misc(); break;
        case 14: op_threads(); break;
        }
    }
    /* Every live hasher's digest, as the last step. */
    for (int i = 0; i < NSLOT; i++) {
        Slot *s = &slots[i];
        if (s->state != LIVE) continue;
        size_t need = slot_dlen(s), len = 0;
        EXPECT(lanesum_hasher_finalize(s->h, scratch, need, &len), LANESUM_OK);
        check_digest(s, scratch, len);
    }
    reset_all();
    return 0;
}
