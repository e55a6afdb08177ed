/* Tests of lanesum's C ABI: official digests, every hasher kind, hash_many, files, the
 * error paths (null pointers and handles, bad names, freed handles, small buffers) and
 * threads sharing an engine and a handle. Run by `make check` (also under ASan+UBSan). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lanesum.h"

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK(%s) failed (last error: %s)\n",        \
                    __FILE__, __LINE__, #cond, lanesum_last_error());            \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define OK(call) CHECK((call) == LANESUM_OK)

static void hex(const uint8_t *d, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
    out[2 * n] = 0;
}

static LanesumAlgorithm alg(const char *name) {
    LanesumAlgorithm a = {0};
    if (lanesum_algorithm(name, &a) != LANESUM_OK) {
        fprintf(stderr, "unknown algorithm %s: %s\n", name, lanesum_last_error());
        failures++;
    }
    return a;
}

/* Official vectors (FIPS 180-4 examples, RFC 1321, RFC 7693, BLAKE3's test vectors). */
struct vector { const char *alg, *msg, *hex; };
static const struct vector ABC[] = {
    {"md5", "abc", "900150983cd24fb0d6963f7d28e17f72"},
    {"sha1", "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {"sha224", "abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
    {"sha256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"sha384", "abc",
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
    {"sha512", "abc",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
     "454d4423643ce80e2a9ac94fa54ca49f"},
    {"sha512-256", "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
    {"blake2b", "abc",
     "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc95"
     "18d38aa8dbf1925ab92386edd4009923"},
    {"blake2s", "abc", "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"},
    {"blake3", "", "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
    {"SHA-256", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"md5", "", "d41d8cd98f00b204e9800998ecf8427e"},
};

/* One million 'a' (FIPS 180-4 / RFC 1321 test suites). */
static const struct vector MILLION_A[] = {
    {"md5", NULL, "7707d6ae4e027c70eea2a935c2296f21"},
    {"sha1", NULL, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
    {"sha256", NULL, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    {"sha512", NULL,
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31b"
     "eb009c5c2c49aa2e4eadb217ad8cc09b"},
};

static void test_version(void) {
    CHECK(lanesum_abi_version() == LANESUM_ABI_VERSION);
    CHECK(strlen(lanesum_version()) > 0);
    size_t n = lanesum_algorithm_names_count();
    CHECK(n >= 11);
    for (size_t i = 0; i < n; i++) {
        /* "blake2b[-BITS]" names a family; its bare name parses. */
        char name[64];
        snprintf(name, sizeof name, "%s", lanesum_algorithm_names_get(i));
        char *bracket = strchr(name, '[');
        if (bracket) *bracket = 0;
        LanesumAlgorithm a = alg(name);
        CHECK(a.id != 0);
        CHECK(lanesum_algorithm_name(a) != NULL);
    }
    CHECK(lanesum_algorithm_names_get(n) == NULL);
    LanesumAlgorithm a = alg("SHA512/256"), b = alg("sha512-256");
    CHECK(a.id == b.id);
    CHECK(strcmp(lanesum_algorithm_name(a), "sha512-256") == 0);
    size_t len = 0;
    OK(lanesum_algorithm_digest_len(alg("blake2b-256"), &len));
    CHECK(len == 32);
    OK(lanesum_algorithm_block_len(alg("sha384"), &len));
    CHECK(len == 128);
}

static void test_oneshot(void) {
    for (size_t i = 0; i < sizeof ABC / sizeof ABC[0]; i++) {
        uint8_t d[64];
        char h[129];
        size_t n = 0;
        OK(lanesum_hash(alg(ABC[i].alg), (const uint8_t *)ABC[i].msg, strlen(ABC[i].msg), d,
                        sizeof d, &n));
        hex(d, n, h);
        if (strcmp(h, ABC[i].hex) != 0) {
            fprintf(stderr, "%s(%s) = %s, want %s\n", ABC[i].alg, ABC[i].msg, h, ABC[i].hex);
            failures++;
        }
    }
    /* Empty input with a null pointer is fine. */
    uint8_t d[16];
    OK(lanesum_hash(alg("md5"), NULL, 0, d, sizeof d, NULL));
}

/* One million 'a' through a hasher in writes of odd sizes; checks the digest. */
static void million_a(LanesumHasher h, const char *want, const char *what) {
    static uint8_t buf[1000000];
    memset(buf, 'a', sizeof buf);
    size_t at = 0, step = 1;
    while (at < sizeof buf) {
        size_t n = step < sizeof buf - at ? step : sizeof buf - at;
        OK(lanesum_hasher_update(h, buf + at, n));
        at += n;
        step = step * 3 + 7;
        if (step > 70000) step = 13;
    }
    uint8_t d[256];
    char hx[513];
    size_t n = 0;
    OK(lanesum_hasher_finalize(h, d, sizeof d, &n));
    hex(d, n, hx);
    if (strcmp(hx, want) != 0) {
        fprintf(stderr, "%s: million a = %s, want %s\n", what, hx, want);
        failures++;
    }
}

static void test_streaming(void) {
    LanesumEngine own;
    OK(lanesum_engine_new(&own));
    for (size_t i = 0; i < sizeof MILLION_A / sizeof MILLION_A[0]; i++) {
        LanesumAlgorithm a = alg(MILLION_A[i].alg);
        LanesumHasher h;
        OK(lanesum_hasher_new(a, &h));
        million_a(h, MILLION_A[i].hex, "plain");
        /* Finalized: reset, and it hashes again from the start. */
        OK(lanesum_hasher_reset(h));
        million_a(h, MILLION_A[i].hex, "plain after reset");
        OK(lanesum_hasher_free(h));
        OK(lanesum_lane_hasher_new(lanesum_engine_global(), a, &h));
        million_a(h, MILLION_A[i].hex, "lane (global engine)");
        OK(lanesum_hasher_free(h));
        OK(lanesum_lane_hasher_new(own, a, &h));
        million_a(h, MILLION_A[i].hex, "lane (own engine)");
        OK(lanesum_hasher_free(h));
    }
    /* All four in one multi hasher: digests one after the other. */
    LanesumAlgorithm four[4];
    char want[1024] = "";
    for (int i = 0; i < 4; i++) {
        four[i] = alg(MILLION_A[i].alg);
        strcat(want, MILLION_A[i].hex);
    }
    LanesumHasher m;
    OK(lanesum_multi_hasher_new(own, four, 4, &m));
    size_t len = 0;
    OK(lanesum_hasher_digest_len(m, &len));
    CHECK(len == 16 + 20 + 32 + 64);
    million_a(m, want, "multi");
    OK(lanesum_hasher_free(m));
    OK(lanesum_engine_free(own));

    /* Copy: digest of a prefix, then go on. */
    LanesumHasher h, c;
    OK(lanesum_hasher_new(alg("sha256"), &h));
    OK(lanesum_hasher_update(h, (const uint8_t *)"ab", 2));
    OK(lanesum_hasher_copy(h, &c));
    OK(lanesum_hasher_update(c, (const uint8_t *)"c", 1));
    uint8_t d[32];
    char hx[65];
    OK(lanesum_hasher_finalize(c, d, sizeof d, NULL));
    hex(d, 32, hx);
    CHECK(strcmp(hx, ABC[3].hex) == 0);
    OK(lanesum_hasher_update(h, (const uint8_t *)"c", 1));
    OK(lanesum_hasher_finalize(h, d, sizeof d, NULL));
    hex(d, 32, hx);
    CHECK(strcmp(hx, ABC[3].hex) == 0);
    OK(lanesum_hasher_free(c));
    OK(lanesum_hasher_free(h));
}

static void test_hash_many(void) {
    enum { COUNT = 300 };
    static uint8_t data[COUNT * 97];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 131 + 7);
    LanesumSlice msgs[COUNT];
    for (size_t i = 0; i < COUNT; i++) {
        msgs[i].ptr = i % 50 == 0 ? NULL : data + i; /* some empty, with null pointers */
        msgs[i].len = i % 50 == 0 ? 0 : (i * 37) % (sizeof data - i);
    }
    const char *names[] = {"md5", "sha1", "sha256", "sha512", "blake3", "blake2s-128"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        LanesumAlgorithm a = alg(names[k]);
        size_t n = 0;
        OK(lanesum_algorithm_digest_len(a, &n));
        for (int par = 0; par < 2; par++) {
            uint8_t *out = malloc(COUNT * n);
            OK(lanesum_hash_many(a, msgs, COUNT, out, COUNT * n, par));
            for (size_t i = 0; i < COUNT; i++) {
                uint8_t one[64];
                OK(lanesum_hash(a, msgs[i].ptr, msgs[i].len, one, sizeof one, NULL));
                if (memcmp(one, out + i * n, n) != 0) {
                    fprintf(stderr, "hash_many %s par=%d message %zu differs\n", names[k], par, i);
                    failures++;
                    break;
                }
            }
            /* Too small an output. */
            CHECK(lanesum_hash_many(a, msgs, COUNT, out, COUNT * n - 1, par) == LANESUM_ERR_BUFFER);
            free(out);
        }
    }
    /* No messages at all is fine. */
    OK(lanesum_hash_many(alg("md5"), NULL, 0, NULL, 0, 0));
}

/* update_many: one million 'a' into each of the four algorithms' plain hashers (several
 * per algorithm) in calls of ragged pieces, every digest the official one; a repeated
 * handle is an error. */
static void test_update_many(void) {
    enum { PER = 5, N = 4 * PER };
    static uint8_t buf[1000000];
    memset(buf, 'a', sizeof buf);
    LanesumHasher hs[N];
    size_t at[N] = {0};
    for (size_t i = 0; i < N; i++) OK(lanesum_hasher_new(alg(MILLION_A[i % 4].alg), &hs[i]));
    for (int left = N; left > 0;) {
        LanesumSlice pieces[N];
        left = 0;
        for (size_t i = 0; i < N; i++) {
            size_t want = 1 + (i * 7919 + at[i] * 3) % 70001;
            size_t n = want < sizeof buf - at[i] ? want : sizeof buf - at[i];
            pieces[i].ptr = n ? buf + at[i] : NULL;
            pieces[i].len = n;
            at[i] += n;
            left += at[i] < sizeof buf;
        }
        OK(lanesum_hasher_update_many(hs, pieces, N));
    }
    LanesumHasher twice[2] = {hs[0], hs[0]};
    LanesumSlice two[2] = {{buf, 1}, {buf, 1}};
    CHECK(lanesum_hasher_update_many(twice, two, 2) == LANESUM_ERR_ARGUMENT);
    for (size_t i = 0; i < N; i++) {
        uint8_t d[64];
        char hx[129];
        size_t n = 0;
        OK(lanesum_hasher_finalize(hs[i], d, sizeof d, &n));
        hex(d, n, hx);
        if (strcmp(hx, MILLION_A[i % 4].hex) != 0) {
            fprintf(stderr, "update_many %s hasher %zu: %s\n", MILLION_A[i % 4].alg, i, hx);
            failures++;
        }
        OK(lanesum_hasher_free(hs[i]));
    }
    OK(lanesum_hasher_update_many(NULL, NULL, 0));
}

static void test_errors(void) {
    LanesumAlgorithm a = {0};
    CHECK(lanesum_algorithm(NULL, &a) == LANESUM_ERR_NULL);
    CHECK(lanesum_algorithm("md4", &a) == LANESUM_ERR_ALGORITHM);
    CHECK(strstr(lanesum_last_error(), "md4") != NULL);
    CHECK(lanesum_algorithm("blake2b-7", &a) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_algorithm("\xff\xfe", &a) == LANESUM_ERR_ARGUMENT);
    CHECK(lanesum_algorithm("md5", NULL) == LANESUM_ERR_NULL);
    size_t n;
    LanesumAlgorithm zero = {0}, bogus = {99999};
    CHECK(lanesum_algorithm_digest_len(zero, &n) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_algorithm_digest_len(bogus, &n) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_algorithm_name(bogus) == NULL);
    uint8_t d[64];
    CHECK(lanesum_hash(bogus, NULL, 0, d, sizeof d, NULL) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_hash(alg("sha256"), NULL, 5, d, sizeof d, NULL) == LANESUM_ERR_NULL);
    CHECK(lanesum_hash(alg("sha256"), (const uint8_t *)"x", 1, d, 31, NULL) == LANESUM_ERR_BUFFER);
    CHECK(strstr(lanesum_last_error(), "32") != NULL);
    CHECK(lanesum_hash(alg("sha256"), (const uint8_t *)"x", 1, NULL, 32, NULL) == LANESUM_ERR_NULL);

    LanesumHasher null_h = {0}, fake = {0x123456789abcULL}, h, out;
    CHECK(lanesum_hasher_update(null_h, d, 1) == LANESUM_ERR_NULL);
    CHECK(lanesum_hasher_update(fake, d, 1) == LANESUM_ERR_HANDLE);
    CHECK(lanesum_hasher_free(null_h) == LANESUM_ERR_NULL);
    CHECK(lanesum_hasher_new(bogus, &h) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_hasher_new(alg("md5"), NULL) == LANESUM_ERR_NULL);

    /* Finalized, small buffer, reset. */
    OK(lanesum_hasher_new(alg("sha1"), &h));
    CHECK(lanesum_hasher_update(h, NULL, 3) == LANESUM_ERR_NULL);
    CHECK(lanesum_hasher_finalize(h, d, 19, NULL) == LANESUM_ERR_BUFFER);
    OK(lanesum_hasher_finalize(h, d, 20, NULL)); /* the failed finalize did not finalize */
    CHECK(lanesum_hasher_update(h, d, 1) == LANESUM_ERR_STATE);
    CHECK(lanesum_hasher_finalize(h, d, 20, NULL) == LANESUM_ERR_STATE);
    OK(lanesum_hasher_reset(h));
    OK(lanesum_hasher_update(h, d, 1));

    /* Use after free and double free are reported, also once the slot is reused. */
    OK(lanesum_hasher_free(h));
    CHECK(lanesum_hasher_update(h, d, 1) == LANESUM_ERR_HANDLE);
    CHECK(strstr(lanesum_last_error(), "freed") != NULL);
    CHECK(lanesum_hasher_finalize(h, d, sizeof d, NULL) == LANESUM_ERR_HANDLE);
    CHECK(lanesum_hasher_copy(h, &out) == LANESUM_ERR_HANDLE);
    CHECK(lanesum_hasher_free(h) == LANESUM_ERR_HANDLE);
    LanesumHasher again;
    OK(lanesum_hasher_new(alg("sha1"), &again));
    CHECK(again.id != h.id);
    CHECK(lanesum_hasher_free(h) == LANESUM_ERR_HANDLE);
    OK(lanesum_hasher_update(again, d, 1));

    /* Kinds: an engine is not a hasher, engine hashers are not copyable. */
    LanesumEngine e;
    OK(lanesum_engine_new(&e));
    LanesumHasher as_hasher = {e.id};
    CHECK(lanesum_hasher_update(as_hasher, d, 1) == LANESUM_ERR_HANDLE);
    CHECK(lanesum_hasher_free(as_hasher) == LANESUM_ERR_HANDLE);
    LanesumEngine as_engine = {again.id};
    CHECK(lanesum_lane_hasher_new(as_engine, alg("md5"), &out) == LANESUM_ERR_HANDLE);
    CHECK(lanesum_engine_free(as_engine) == LANESUM_ERR_HANDLE);
    OK(lanesum_lane_hasher_new(e, alg("md5"), &out));
    CHECK(lanesum_hasher_copy(out, &h) == LANESUM_ERR_UNSUPPORTED);
    OK(lanesum_engine_free(e));
    CHECK(lanesum_engine_free(e) == LANESUM_ERR_HANDLE);
    OK(lanesum_hasher_update(out, d, 1)); /* outlives its engine's handle */
    OK(lanesum_hasher_free(out));
    CHECK(lanesum_engine_free(lanesum_engine_global()) == LANESUM_ERR_ARGUMENT);
    OK(lanesum_hasher_free(again));

    LanesumAlgorithm two[2] = {alg("md5"), bogus};
    CHECK(lanesum_multi_hasher_new(lanesum_engine_global(), two, 0, &h) == LANESUM_ERR_ARGUMENT);
    CHECK(lanesum_multi_hasher_new(lanesum_engine_global(), two, 2, &h) == LANESUM_ERR_ALGORITHM);
    CHECK(lanesum_multi_hasher_new(lanesum_engine_global(), NULL, 2, &h) == LANESUM_ERR_NULL);

    CHECK(strcmp(lanesum_status_str(LANESUM_ERR_HANDLE), "ok") != 0);
    CHECK(strcmp(lanesum_status_str(12345), "unknown status") == 0);
}

/* Threads: each streams its own message on a shared engine; and several threads update
 * one handle (calls take turns, identical chunks so the order does not matter). */
enum { THREADS = 16, CHUNK = 3001, CHUNKS = 700 };
static LanesumEngine shared_engine;
static LanesumHasher shared_handle;

static void *stream_thread(void *arg) {
    size_t t = (size_t)arg;
    const char *name = (const char *[]){"md5", "sha1", "sha256", "sha512"}[t % 4];
    LanesumAlgorithm a = alg(name);
    uint8_t *msg = malloc((size_t)CHUNK * CHUNKS);
    for (size_t i = 0; i < (size_t)CHUNK * CHUNKS; i++) msg[i] = (uint8_t)(i * (t + 3) + t);
    LanesumHasher h;
    OK(lanesum_lane_hasher_new(shared_engine, a, &h));
    for (size_t i = 0; i < CHUNKS; i++) OK(lanesum_hasher_update(h, msg + i * CHUNK, CHUNK));
    uint8_t got[64], want[64];
    size_t n;
    OK(lanesum_hasher_finalize(h, got, sizeof got, &n));
    OK(lanesum_hasher_free(h));
    OK(lanesum_hash(a, msg, (size_t)CHUNK * CHUNKS, want, sizeof want, NULL));
    if (memcmp(got, want, n) != 0) {
        fprintf(stderr, "thread %zu (%s): engine digest differs\n", t, name);
        __atomic_add_fetch(&failures, 1, __ATOMIC_SEQ_CST);
    }
    /* The shared handle. */
    static const uint8_t same[CHUNK] = {42};
    for (int i = 0; i < 50; i++) OK(lanesum_hasher_update(shared_handle, same, CHUNK));
    free(msg);
    return NULL;
}

static void test_threads(void) {
    OK(lanesum_engine_new(&shared_engine));
    OK(lanesum_lane_hasher_new(shared_engine, alg("sha256"), &shared_handle));
    pthread_t th[THREADS];
    for (size_t t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, stream_thread, (void *)t);
    for (size_t t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    uint8_t got[32], want[32];
    OK(lanesum_hasher_finalize(shared_handle, got, sizeof got, NULL));
    size_t total = (size_t)THREADS * 50 * CHUNK;
    uint8_t *all = malloc(total);
    for (size_t i = 0; i < total; i++) all[i] = i % CHUNK == 0 ? 42 : 0;
    OK(lanesum_hash(alg("sha256"), all, total, want, sizeof want, NULL));
    CHECK(memcmp(got, want, 32) == 0);
    free(all);
    OK(lanesum_hasher_free(shared_handle));
    OK(lanesum_engine_free(shared_engine));
}

/* Files: results in order, each file's digests those of lanesum_hash, a missing file's
 * error in its result; a callback may stop the walk. */
struct seen { int count, missing; char dir[64]; };

static int on_file(void *user, const LanesumFileResult *r) {
    struct seen *s = user;
    s->count++;
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)r->path_len, (const char *)r->path);
    if (r->os_error != 0) {
        CHECK(r->os_error == ENOENT);
        CHECK(r->error != NULL && strlen(r->error) > 0);
        s->missing++;
        return 0;
    }
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return 0;
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(r->size == n);
    CHECK(r->digests_len == 16 + 32);
    uint8_t want[48];
    OK(lanesum_hash(alg("md5"), buf, n, want, 16, NULL));
    OK(lanesum_hash(alg("sha256"), buf, n, want + 16, 32, NULL));
    CHECK(memcmp(want, r->digests, 48) == 0);
    return 0;
}

static int stop_at_first(void *user, const LanesumFileResult *r) {
    (void)r;
    ++*(int *)user;
    return 1;
}

static void test_files(void) {
    struct seen s = {0};
    snprintf(s.dir, sizeof s.dir, "/tmp/lanesum-ctest-%d", (int)getpid());
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/sub && printf abc > %s/a && head -c 300000 /dev/zero > "
             "%s/sub/big && : > %s/sub/empty", s.dir, s.dir, s.dir, s.dir);
    CHECK(system(cmd) == 0);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing", s.dir);
    const char *paths[] = {s.dir, missing};
    LanesumAlgorithm algs[2] = {alg("md5"), alg("sha256")};
    LanesumFileOptions o = {.recursive = 1, .mmap = 1};
    OK(lanesum_hash_files(paths, 2, algs, 2, &o, on_file, &s));
    CHECK(s.count == 4);
    CHECK(s.missing == 1);
    int calls = 0;
    CHECK(lanesum_hash_files(paths, 2, algs, 2, &o, stop_at_first, &calls) == LANESUM_ERR_CANCELLED);
    CHECK(calls == 1);
    /* Without recursion a directory is that operand's error, not the call's. */
    s.count = 0;
    s.missing = 0;
    const char *exclude[] = {"["};
    LanesumFileOptions bad = {.recursive = 1, .excludes = exclude, .excludes_len = 1};
    CHECK(lanesum_hash_files(paths, 2, algs, 2, &bad, on_file, &s) == LANESUM_ERR_ARGUMENT);
    CHECK(lanesum_hash_files(paths, 2, algs, 2, NULL, NULL, &s) == LANESUM_ERR_NULL);
    CHECK(lanesum_hash_files(paths, 2, algs, 0, NULL, on_file, &s) == LANESUM_ERR_ARGUMENT);
    snprintf(cmd, sizeof cmd, "rm -rf %s", s.dir);
    CHECK(system(cmd) == 0);
}

int main(void) {
    lanesum_install_sigbus_handler();
    test_version();
    test_oneshot();
    test_streaming();
    test_hash_many();
    test_update_many();
    test_errors();
    test_threads();
    test_files();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("lanesum C ABI tests passed (ABI %u, lanesum %s)\n", lanesum_abi_version(),
           lanesum_version());
    return 0;
}
